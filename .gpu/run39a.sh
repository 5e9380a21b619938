# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (the
# cudnn_batch_norm_silu cases' tolerance raised after the thirty-eighth session's run;
# image_convolutions in measured; the new prediction_rows cases), then prediction_rows against the
# default in YOLOv9-t's step (bench fused) and end to end, YOLOX-s's step, then YOLOv9-t's census with it.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "prediction rows|cudnn_batch_norm_silu|image convolutions" $OUT/ctest.log | head -12
fits 60 && bench_fused $OUT/fused_prediction_rows_yolo9t.txt yolo9t prediction_rows
e2e_model yolo9t measured measured+prediction_rows
fits 60 && bench_fused $OUT/fused_prediction_rows_yoloxs.txt yoloxs prediction_rows
fits 60 && census yolo9 t measured+prediction_rows
grep -E "prediction_rows|CatArray|direct_copy|reduce_kernel" $OUT/kernels_yolo9t.txt 2>/dev/null | cut -c1-160
stamp "end"

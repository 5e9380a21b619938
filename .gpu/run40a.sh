# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (unrun since the
# thirty-eighth session: cudnn_batch_norm_silu's raised tolerance, image_convolutions in measured,
# the prediction_rows cases; new: the fused optimizer step's GPU case), then both new fused
# kernels against the default in YOLOv9-t's step (bench fused), the optimizer step in YOLOX-s's,
# and YOLOv9-t end to end with each.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "optimizer step|prediction rows|cudnn_batch_norm_silu|image convolutions" $OUT/ctest.log | head -12
fits 60 && bench_fused $OUT/fused_optimizer_step_yolo9t.txt yolo9t optimizer_step
grep -E "optimizer step|fused_kernels: this step" $OUT/fused_optimizer_step_yolo9t.txt | head -4
fits 60 && bench_fused $OUT/fused_prediction_rows_yolo9t.txt yolo9t prediction_rows
fits 60 && bench_fused $OUT/fused_optimizer_step_yoloxs.txt yoloxs optimizer_step
e2e_model yolo9t measured measured+optimizer_step measured+prediction_rows
stamp "end"

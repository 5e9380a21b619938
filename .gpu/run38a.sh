# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (the Focus case's
# refusal check now under autocast; the new cudnn_batch_norm_silu cases; the task-aligned metric's
# new layout and the selection without dense scores, bit for bit against the composed ops), then
# cudnn_batch_norm_silu (cuDNN's BatchNorm with SiLU in its forward kernel) per layer and in both
# steps, YOLOv9-t end to end with and without it, the census of today's default (anchor_rows, the
# metric kernel, no dense scores: are the 146 us concatenation, the 195 us metric kernel and the
# 57 us class-scores kernel gone?), and who makes YOLOv9-t's copies and sums.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "cudnn_batch_norm_silu|image convolutions|task_aligned" $OUT/ctest.log | head -8
fits 70 && bn_check
fits 40 && bench_fused $OUT/cudnn_bn_yolo9t.txt yolo9t cudnn_batch_norm_silu
fits 40 && bench_fused $OUT/cudnn_bn_yoloxs.txt yoloxs cudnn_batch_norm_silu
e2e_model yolo9t measured measured+cudnn_batch_norm_silu measured measured+cudnn_batch_norm_silu
fits 40 && census yolo9 t measured
grep -E "metric_kernel|class_scores|CatArray|direct_copy|float16_copy|reduce_kernel|silu" $OUT/kernels_yolo9t.txt | cut -c1-160
fits 40 && timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=5 warmup=3 op_callers=aten::copy_ > $OUT/copies_yolo9t.txt 2>&1
stamp "op_callers copy rc=$?"; grep -A14 "who calls" $OUT/copies_yolo9t.txt | cut -c1-220
fits 40 && timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=5 warmup=3 op_callers=aten::sum > $OUT/sums_yolo9t.txt 2>&1
stamp "op_callers sum rc=$?"; grep -A14 "who calls" $OUT/sums_yolo9t.txt | cut -c1-220
stamp "end"

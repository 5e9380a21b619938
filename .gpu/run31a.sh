# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE): the
# whole cuda build and ctest (batch_norm_silu_large's GPU case, built after the thirtieth session's
# last call), batch_norm_silu_check (GPU time per layer for the composed ops, the three-launch and
# the cluster kernels), then bench fused for batch_norm_silu_large (the three-launch BatchNorm +
# SiLU from 2^20 positions up, cuDNN below) on YOLOv9-t and YOLOX-s, and YOLOv9-t end to end with
# it and without.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
fits 60 && bn_check
for model in yolo9t yoloxs; do
  fits 45 || break
  bench_fused $OUT/fused_large_$model.txt $model batch_norm_silu_large
done
e2e_yolo9t measured+batch_norm_silu_large measured
stamp "end"

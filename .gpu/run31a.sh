# For the thirty-first session's first call (cold; carry .devkit and .reference; export OUT DEADLINE):
# first the 1x1 convolutions as matrix products (tests/tools/pointwise_conv_probe.py, LibreYOLO's
# YOLOv9-t, Python only), then the whole cuda build and ctest (batch_norm_silu_large's GPU case,
# built after the thirtieth session's last call), bench fused for batch_norm_silu_large (the
# three-launch BatchNorm + SiLU from 2^20 positions up, cuDNN below) on YOLOv9-t and YOLOX-s,
# YOLOv9-t end to end with it and without, and batch_norm_silu_check if time is left.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
timeout 90 python3 tests/tools/pointwise_conv_probe.py yolo9 t --batch 16 > $OUT/pointwise_yolo9t.txt 2>&1
stamp "pointwise yolo9 t rc=$?"; tail -4 $OUT/pointwise_yolo9t.txt
cold_start
for model in yolo9t yoloxs; do
  fits 45 || break
  bench_fused $OUT/fused_large_$model.txt $model batch_norm_silu_large
done
e2e_yolo9t measured+batch_norm_silu_large measured
fits 60 && bn_check
stamp "end"

# The thirty-first session's second call (warm after run31a, or cold with the build skipped when
# build-gpu/ is absent: the probe needs only LibreYOLO): are the networks' 1x1 convolutions faster
# as cuBLAS matrix products than as cuDNN convolutions (tests/tools/pointwise_conv_probe.py), for
# YOLOv9-t and YOLOX-s at batch 16; then YOLOX-s's bench fused for batch_norm_silu_large when
# YOLOX_FUSED=1 (run31a did not reach it).
source .gpu/common.sh
DEADLINE=${DEADLINE:-500}
stamp "start"
for model in "yolo9 t" "yolox s"; do
  fits 120 || break
  timeout 120 python3 tests/tools/pointwise_conv_probe.py $model --batch 16 \
    > "$OUT/pointwise_${model/ /}.txt" 2>&1
  stamp "pointwise $model rc=$?"; grep -vE "^\s+x" "$OUT/pointwise_${model/ /}.txt" | tail -5
done
if [ -x "$H" ] && [ "${YOLOX_FUSED:-0}" = 1 ] && fits 60; then
  [ -d $W/coco128x8 ] || prepare_data
  bench_fused $OUT/fused_large_yoloxs.txt yoloxs batch_norm_silu_large
fi
stamp "end"

# The thirtieth session's last call (cold, short budget; carry .devkit and .reference; export OUT
# DEADLINE): builds the host and the YOLO plugins, then bench fused for batch_norm_silu_large (the
# three-launch BatchNorm + SiLU for activations of at least 2^20 positions only, cuDNN below) for
# YOLOv9-t and YOLOX-s. No ctest (run30a and run30b ran the whole one at 55cf939 and 7f08b14).
source .gpu/common.sh
DEADLINE=${DEADLINE:-300}
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"
grep -E "error" $W/build.log | head -10
for model in yolo9t yoloxs; do
  fits 40 || break
  bench_fused $OUT/fused_large_$model.txt $model batch_norm_silu_large
done
stamp "end"

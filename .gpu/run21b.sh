# The warm follow-up of run21a.sh: the default steps of YOLOv9-t and YOLOX-s (the last default
# YOLOv9-t step, run19f: 22.61 ms median, GPU busy 20.85 ms; YOLOX-s, run18: 16.1 ms) and the
# YOLOX criterion's kernel time by stage (tests/tools/yolox_loss_attribution.py, the composed code
# before and after the twentieth session's changes). KERNELS (env, optional): fused kernels that
# run21a found bitwise equal and faster, added to the default list on the device's copy, then the
# steps again (end to end beside LibreYOLO, as run19f.sh does, in the call after).
source .gpu/common.sh
stamp "start"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for m in yolo9t yoloxs; do
  timeout 45 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_$m.json > $W/s.log 2>&1
  stamp "step $m default rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"
done
for c in before now; do timeout 40 python3 tests/tools/yolox_loss_attribution.py --code $c > $OUT/yolox_loss_$c.txt 2>&1; stamp "yolox attribution $c rc=$?"; done
if [ -n "${KERNELS:-}" ]; then
  for k in $KERNELS; do
    sed -i "s|\"weight_casts\", \"task_aligned_metric\"|\"weight_casts\", \"task_aligned_metric\", \"$k\"|" sdk/include/libreyolo/sdk/fused_kernels.hpp
  done
  grep -n "kMeasuredFasterKernels\[\]" -A1 sdk/include/libreyolo/sdk/fused_kernels.hpp >> $OUT/notes.txt
  scripts/gpu-build.sh > $W/build2.log 2>&1; stamp "rebuilt rc=$?"
  for m in yolo9t yoloxs; do
    timeout 45 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_new_$m.json > $W/s.log 2>&1
    stamp "step $m with $KERNELS rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"
  done
fi
stamp "end"

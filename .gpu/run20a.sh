# Planned for the twentieth session's first call (written in the nineteenth, not run yet): cold
# build and the whole cuda ctest (new since the last GPU run: the fused task-aligned selection and
# its GPU test, never run; the YOLOv9 criterion's one cast and one split, cefba88); then
# task_aligned_selection alone against fused_kernels=off in one process (bench fused: bitwise
# losses, speedup) for YOLOv9-t; YOLOv9-t's default step (after run19f: 22.61 ms median, GPU busy
# 20.85 ms, with the split change now in it); the YOLOX criterion's census if its script exists.
# If the selection is equal and faster: a warm follow-up like run19f.sh (default list patched on
# the device's copy, the step, the end-to-end pair).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench fused model=yolo9t $common steps=40 warmup=10 fused_kernels=task_aligned_selection json=$OUT/fused_tas_yolo9t.json > $W/f.log 2>&1
stamp "fused task_aligned_selection yolo9t rc=$?: $(grep -E 'speedup|identical|equal' $W/f.log | head -4 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
timeout 45 $H bench step model=yolo9t $common steps=40 warmup=10 json=$OUT/step_yolo9t.json > $W/s.log 2>&1
stamp "step yolo9t default rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"
[ -f tests/tools/yolox_loss_attribution.py ] && timeout 40 python3 tests/tools/yolox_loss_attribution.py > $OUT/yolox_loss.txt 2>&1
stamp "end"

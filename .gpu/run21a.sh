# Planned for the next session with a device (written in the twentieth, when none was lent; it
# replaces run20a.sh, never run). Needs .devkit and .reference rebuilt in a fresh checkout
# (docs/gpu-machine.md, the workspace's reference README); carry both.
# Cold build and the whole cuda ctest: new since the last GPU run and never run on a GPU: the
# fused task-aligned selection (35cd3e8) and the fused SimOTA cost, each with a GPU test that
# compares it with the composed ops bit for bit; the YOLOv9 criterion's one cast and one split
# (cefba88); SimOTA's class cost without the full [B, A, C] positive BCE. Then the default
# against the default plus the new kernels in one process (bench fused fused_kernels=measured+...:
# losses bitwise, speedup): task_aligned_selection on YOLOv9-t, simota_cost and simota_selection on
# YOLOX-s.
# Next (warm, run21b.sh): the default steps, the YOLOX criterion's census, and for each kernel
# that was equal and faster, the default list patched on the device's copy and end to end.
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench fused model=yolo9t $common steps=40 warmup=10 fused_kernels=measured+task_aligned_selection json=$OUT/fused_tas_yolo9t.json > $W/f.log 2>&1
stamp "fused task_aligned_selection yolo9t rc=$?: $(grep -E 'speedup|identical|equal' $W/f.log | head -4 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
if [ $SECONDS -lt 480 ]; then
  timeout 100 $H bench fused model=yoloxs $common steps=40 warmup=10 fused_kernels=measured+simota_cost+simota_selection json=$OUT/fused_simota_yoloxs.json > $W/g.log 2>&1
  stamp "fused simota_cost+simota_selection yoloxs rc=$?: $(grep -E 'speedup|identical|equal' $W/g.log | head -4 | cut -c1-300)"; cat $W/g.log >> $OUT/fused.log
fi
stamp "end"

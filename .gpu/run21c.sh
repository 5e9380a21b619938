# Twentieth session, second call (cold; the device was lent late in the session): after run21a
# found task_aligned_selection, simota_cost and simota_selection bitwise equal and faster, the
# three join kMeasuredFasterKernels; the whole cuda ctest again (run21a's one failure was the new
# SimOTA selection refusal test indexing past its own 3 rows, fixed), then the default steps.
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for m in yolo9t yoloxs; do
  timeout 45 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_$m.json > $W/s.log 2>&1
  stamp "step $m default rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"; grep "fused_kernels" $W/s.log >> $OUT/notes.txt
done
stamp "end"

# Nineteenth session, fourth call (cold): build and the whole cuda ctest (new: the fused
# task-aligned metric and its unit test, test_task_aligned_metric.cpp); then #21's
# task_aligned_metric alone against fused_kernels=off in one process (bench fused: 50 losses
# bitwise, next gradients, the step's speedup) for YOLOv9-t. run19f.sh follows, warm.
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench fused model=yolo9t $common steps=40 warmup=10 fused_kernels=task_aligned_metric json=$OUT/fused_tam_yolo9t.json > $W/f.log 2>&1
stamp "fused task_aligned_metric yolo9t rc=$?: $(grep -E 'speedup|identical|equal' $W/f.log | head -4 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
stamp "end"

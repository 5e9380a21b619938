# Nineteenth session, fourth call (cold): build and the whole cuda ctest (new: the fused
# task-aligned metric and its unit test, test_task_aligned_metric.cpp); then #21's
# task_aligned_metric alone against fused_kernels=off in one process (bench fused: 50 losses
# bitwise, next gradients, the step's speedup) for YOLOv9-t; then, on the device's copy only,
# the kernel added to the default list (kMeasuredFasterKernels), rebuilt, and YOLOv9-t's default
# step beside run19d's (23.96 ms median, GPU busy 22.12 ms).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench fused model=yolo9t $common steps=40 warmup=10 fused_kernels=task_aligned_metric json=$OUT/fused_tam_yolo9t.json > $W/f.log 2>&1
stamp "fused task_aligned_metric yolo9t rc=$?: $(grep -E 'speedup|identical|equal' $W/f.log | head -4 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
[ $SECONDS -lt 440 ] || { stamp "end (no time for the default step)"; exit 0; }
sed -i 's|"deform_sampling", "weight_casts"};|"deform_sampling", "weight_casts", "task_aligned_metric"};|' sdk/include/libreyolo/sdk/fused_kernels.hpp
grep -n "kMeasuredFasterKernels\[\]" -A1 sdk/include/libreyolo/sdk/fused_kernels.hpp >> $OUT/notes.txt
timeout 120 ninja -C build-gpu -j16 > $W/rebuild.log 2>&1; stamp "rebuilt rc=$?"
timeout 45 $H bench step model=yolo9t $common steps=40 warmup=10 json=$OUT/step_default_tam_yolo9t.json > $W/s.log 2>&1
stamp "step yolo9t measured+task_aligned_metric rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"
stamp "end"

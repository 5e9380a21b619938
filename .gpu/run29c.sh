# For the next session's first call (cold; carry .devkit and .reference), after the epoch clock
# started waiting for the device (2026-12-06): YOLOv9-t end to end with and without
# native_batch_norm again (run29a/b measured 931-943 against 796-806 images/s while the step was
# 1.008x), the unsynchronised steps' host phases of each (profile run: does the graph launch block
# the host with cuDNN's BatchNorm and not without?), and LibreYOLO beside them. Only the host and
# the two YOLO plugins are built (the whole ctest ran at run29a); run28a.sh for a whole ctest.
# First tests/tools/graph_launch_probe.cu: does a graph relaunch block the host, and do memset or
# cooperative kernel nodes make it? Then bench fused, whose steps now also run back to back.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
fits() { [ $((SECONDS + $1)) -lt $DEADLINE ]; }
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"
nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/graph_launch_probe.cu -o /tmp/graph_probe > $W/probe_build.log 2>&1 \
  && /tmp/graph_probe > $OUT/graph_probe.txt 2>&1; stamp "graph launch probe: $(cat $OUT/graph_probe.txt $W/probe_build.log | tr '\n' ' ' | cut -c1-900)"
common="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
fits 60 && { timeout 60 $H bench fused model=yolo9t $common batch=16 steps=30 warmup=10 fused_kernels=measured+native_batch_norm > $OUT/fused_nbn.txt 2>&1
  stamp "fused native_batch_norm yolo9t rc=$?: $(grep -E 'speedup' $OUT/fused_nbn.txt | cut -c1-200)"; }
n=0
for fused in measured measured+native_batch_norm measured measured+native_batch_norm; do
  n=$((n + 1)); fits 40 || break
  timeout 40 $H bench train model=yolo9t $common batch=16 epochs=3 eval_interval=3 name=e2e_$n fused_kernels=$fused > $OUT/e2e_$n.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $OUT/e2e_$n.log | cut -c1-120)"
done
for fused in measured measured+native_batch_norm; do
  n=$((n + 1)); fits 60 || break
  timeout 60 $H profile run $W/coco128x8/data.yaml --model yolo9 --size t --batch 16 workers=16 cache=ram device=0 cuda_graph=true fused_kernels=$fused project=/tmp/runs name=prof_$n > $OUT/profile_$n.log 2>&1
  stamp "profile yolo9t $fused rc=$?: $(tail -3 $OUT/profile_$n.log | tr '\n' ' ' | cut -c1-400)"
done
fits 90 && lib_trainbench yolo9t yolo9 t
stamp "end"

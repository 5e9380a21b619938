# Warm after run46a.sh, or cold on its own (then it builds the host and the YOLO plugins only, and
# ninja's log comes back; carry .devkit and .reference; export OUT DEADLINE=...): first
# tests/tools/graph_launch_probe.cu (does a graph launch's host time follow the graph's shape?), then
# #21's figures of the day that run46a's build and ctest leave no time for (YOLOv9-t's
# captured step at batch 16, both models end to end, batch 8), then two questions never measured:
# `alternate_step_graphs` in the step (two copies of each step graph replayed in turn: do back-to-back
# steps get faster?) and YOLOX-s's eager step with and without the fused optimizer step.
source .gpu/common.sh
DEADLINE=${DEADLINE:-300}
stamp "start on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
[ -f $W/coco128x8/data.yaml ] || prepare_data
[ -x $H ] || { scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"; cp build-gpu/.ninja_log $OUT/ninja_log.txt; }
graph_probe
step_yolo9t 16
e2e_model yolo9t measured
e2e_model yoloxs measured
step_yolo9t 8
fits 60 && bench_fused $OUT/alternate_yolo9t.txt yolo9t alternate_step_graphs
eager_ab_yoloxs
stamp "end"

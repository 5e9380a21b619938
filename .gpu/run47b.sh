# Warm after run46a.sh, or cold on its own (then it builds the host and the YOLO plugins
# only; carry .devkit and .reference; export OUT DEADLINE=...): first tests/tools/graph_launch_probe.cu
# (does a graph launch's host time follow the graph's shape?) and batch_norm_memsets_leading in
# YOLOv9-t's step (the merged memsets' kernel ahead of the graph instead of an edge to each call),
# then run46b.sh's figures and questions in what the deadline leaves.
source .gpu/common.sh
DEADLINE=${DEADLINE:-300}
stamp "run47b on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
[ -x /tmp/graph_probe ] || graph_probe  # run47a/c ran it already on this machine
[ -f $W/coco128x8/data.yaml ] || prepare_data
[ -x $H ] || { scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"; cp build-gpu/.ninja_log $OUT/ninja_log.txt; }
[ -f /tmp/leading_done ] || { fits 60 && bench_fused $OUT/leading_yolo9t.txt yolo9t batch_norm_memsets_leading; }
source .gpu/run46b.sh

# Cold, one call (carry .devkit and .reference; export OUT DEADLINE=...): tests/tools/graph_launch_probe.cu
# first (about 15 s: does a graph launch's host time follow the graph's shape?), then run46a.sh: the
# build with core's precompiled header (ninja's log comes back), the whole cuda ctest, #21's figures.
source .gpu/common.sh
stamp "run47a on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
graph_probe
source .gpu/run46a.sh

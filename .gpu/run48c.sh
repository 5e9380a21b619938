# Cold and short, for a session with little device time (export OUT): the fill and copy kernels
# against the driver's memsets and memcpys, and the graph launch probe (does a graph of memcpy
# nodes launch as slowly as one of memsets?). No build, no ctest.
source .gpu/common.sh
stamp "run48c on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
fill_check
graph_probe
stamp "end"

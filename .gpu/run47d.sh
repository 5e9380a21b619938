# Cold, one call with little device time left (carry .devkit and .reference; export OUT
# DEADLINE=...): memset_kernel_nodes' fill kernel against the driver's memsets, the graph launch
# probe (since run47d's first run also memcpy nodes and a graph of only 3 memsets), the build, the whole
# cuda ctest (at most 100 s), then YOLOv9-t's step with batch_norm_memsets_leading + memset_kernel_nodes
# and with memset_kernel_nodes alone against the default (bench fused), and with copy_kernel_nodes
# added (since the forty-eighth session; fill_check checks its copies too), where the deadline allows.
source .gpu/common.sh
DEADLINE=${DEADLINE:-430}
stamp "run47d on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
fill_check
graph_probe
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 100 ? DEADLINE - SECONDS : 100 ))
fits 45 && bench_fused $OUT/leading_kernel_nodes_yolo9t.txt yolo9t batch_norm_memsets_leading+memset_kernel_nodes
fits 45 && bench_fused $OUT/kernel_nodes_yolo9t.txt yolo9t memset_kernel_nodes
fits 45 && bench_fused $OUT/all_kernel_nodes_yolo9t.txt yolo9t batch_norm_memsets_leading+memset_kernel_nodes+copy_kernel_nodes
stamp "end"

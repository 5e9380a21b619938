# Cold, one call with device time short (carry .devkit and .reference; export OUT DEADLINE=...):
# the fill and copy kernels against the driver's memsets and memcpys, the build, the whole cuda
# ctest (at most 100 s), YOLOv9-t's step with batch_norm_memsets_leading + memset_kernel_nodes
# against the default, the same with copy_kernel_nodes, then the first end-to-end pair for the
# former (default, candidate) and the launch probe, where the deadline allows.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "run48a on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
fill_check
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 100 ? DEADLINE - SECONDS : 100 ))
fits 45 && bench_fused $OUT/leading_kernel_nodes_yolo9t.txt yolo9t batch_norm_memsets_leading+memset_kernel_nodes
fits 45 && bench_fused $OUT/all_kernel_nodes_yolo9t.txt yolo9t batch_norm_memsets_leading+memset_kernel_nodes+copy_kernel_nodes
e2e_model yolo9t measured measured+batch_norm_memsets_leading+memset_kernel_nodes
fits 35 && graph_probe
stamp "end"

# Warm, after run38a (export OUT DEADLINE=540): cudnn_batch_norm_silu's learning check (YOLOv9-t
# memorisation, paired runs per seed, docs/fused-kernels.md "Choosing"): seeds 0 and 1, then 2
# and 3 (four runs side by side took 244 s in the thirty-sixth session); then
# tests/tools/learning_pairs.py on the logs.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
memorise_pairs yolo9t 200 cudnn_batch_norm_silu 0 1
fits 250 && memorise_pairs yolo9t 200 cudnn_batch_norm_silu 2 3
stamp "end"

# Warm, after run37a (export OUT DEADLINE=540): batch_norm_silu_large's learning check with two more
# seeds under the rule docs/fused-kernels.md states ("Choosing": the mean paired difference over at
# least four seeds no lower than -2%). The thirty-second session ran seed 0 three times with it
# (0.760, 0.777, 0.825) and seed 1 once (0.853), against 0.872 / 0.846 (seed 0) and 0.850 (seed 1)
# without, not side by side in pairs; seeds 2 and 3 here are pairs. Then tests/tools/learning_pairs.py.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
memorise_pairs yolo9t 200 batch_norm_silu_large 2 3
stamp "end"

# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the default with small_convolutions
# in it (the thirty-sixth session changed the policy list after its calls): the whole ctest, the
# census of the new default's step, and batch_norm_silu_large against it in YOLOv9-t's and
# YOLOX-s's steps (its learning check is the one .gpu/run37b.sh continues).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
fits 70 && census yolo9 t measured
fits 60 && bench_fused $OUT/bnl_yolo9t.txt yolo9t batch_norm_silu_large
fits 60 && bench_fused $OUT/bnl_yoloxs.txt yoloxs batch_norm_silu_large
stamp "end"

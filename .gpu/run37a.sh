# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (with the default
# that has small_convolutions in it since the thirty-sixth session, and the new image_convolutions
# GPU cases), then image_convolutions against the default in YOLOv9-t's step, batch_norm_silu_large
# against it (its learning check is what .gpu/run37b.sh continues), and the default's census.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "image convolutions" $OUT/ctest.log | head -5
fits 60 && bench_fused $OUT/image_yolo9t.txt yolo9t image_convolutions
fits 60 && bench_fused $OUT/bnl_yolo9t.txt yolo9t batch_norm_silu_large
fits 70 && census yolo9 t measured
stamp "end"

# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (with the default
# that has small_convolutions in it since the thirty-sixth session, and the new image_convolutions
# GPU cases), then image_convolutions against the default in YOLOv9-t's and YOLOX-s's steps and
# YOLOv9-t's end to end (alternating), then the default's census if time is left. batch_norm_silu_large's comparison and
# learning check wait (.gpu/run37b.sh).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "image convolutions|image_conv" $OUT/ctest.log | head -5
fits 60 && bench_fused $OUT/image_yolo9t.txt yolo9t image_convolutions
fits 60 && bench_fused $OUT/image_yoloxs.txt yoloxs image_convolutions
e2e_yolo9t measured measured+image_convolutions measured measured+image_convolutions
fits 70 && census yolo9 t measured
stamp "end"

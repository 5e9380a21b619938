# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE=540):
# the whole build and ctest (aligned_channels, small_convolutions and batch_norm_silu_large's
# removal from the default were written after the thirty-second session's last ctest: their first
# GPU run), then small_convolutions in YOLOv9-t's step and aligned_channels (YOLOX's Focus input
# widened to sixteen channels) in YOLOX-s's, each against the default, and YOLOX-s end to end with
# and without aligned_channels, alternating. First, the small-convolution probe
# (written in the thirty-second session, compiled there only).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
small_conv_probe 40  # tests/tools/small_conv_probe.cu: our small 3x3 convolutions against cuDNN's (first run)
cold_start
grep -E "aligned channels|largest relative gradient" $OUT/ctest.log | head -5
fits 60 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
fits 60 && bench_fused $OUT/aligned_yoloxs.txt yoloxs aligned_channels
e2e_model yoloxs measured+aligned_channels measured measured+aligned_channels measured
stamp "end"

# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (the Focus case's
# refusal check now asked under autocast: the thirty-seventh session's one failure), then the
# census of YOLOv9-t's and YOLOX-s's steps with image_convolutions (our kernels' own times, which
# .gpu/run37a.sh did not measure: it found 1.004x and 1.005x where cuDNN's stem took about
# 0.31 ms a step), then YOLOX-s end to end with and without it, alternating.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "image convolutions|image_conv" $OUT/ctest.log | head -5
fits 40 && census yolo9 t measured+image_convolutions
fits 40 && census yolox s measured+image_convolutions
grep -E "image_conv3x3|nhwcAddPadding|CatArray" $OUT/kernels_yolo9t.txt $OUT/kernels_yoloxs.txt | cut -c1-160
e2e_model yoloxs measured measured+image_convolutions measured measured+image_convolutions
stamp "end"

# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the whole ctest (the Focus case's
# refusal check now asked under autocast: the thirty-seventh session's one failure), then the
# census of YOLOv9-t's and YOLOX-s's steps with image_convolutions (our kernels' own times, which
# .gpu/run37a.sh did not measure: it found 1.004x and 1.005x where cuDNN's stem took about
# 0.31 ms a step), who makes YOLOv9-t's copies (op_callers), then YOLOX-s end to end with and
# without image_convolutions, alternating.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
grep -E "image convolutions|image_conv" $OUT/ctest.log | head -5
fits 40 && census yolo9 t measured+image_convolutions
fits 40 && census yolox s measured+image_convolutions
grep -E "image_conv3x3|nhwcAddPadding|CatArray|direct_copy|float16_copy" $OUT/kernels_yolo9t.txt $OUT/kernels_yoloxs.txt | cut -c1-160
# The H200 census of the thirty-seventh session counted 65 copy kernels a step at 8.6 us (0.56 ms),
# where the twenty-sixth session's op_callers list summed to well under 0.1 ms by bytes: who now?
fits 60 && timeout 60 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=5 warmup=3 op_callers=aten::copy_ > $OUT/copies_yolo9t.txt 2>&1
stamp "op_callers rc=$?"; grep -A14 "who calls" $OUT/copies_yolo9t.txt | cut -c1-220
# Six half-precision reductions a step at 28 us (0.17 ms) in the thirty-seventh session's census:
# the head's bias gradients? Who sums.
fits 60 && timeout 60 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=5 warmup=3 op_callers=aten::sum > $OUT/sums_yolo9t.txt 2>&1
stamp "op_callers sum rc=$?"; grep -A14 "who calls" $OUT/sums_yolo9t.txt | cut -c1-220
e2e_model yoloxs measured measured+image_convolutions measured measured+image_convolutions
stamp "end"

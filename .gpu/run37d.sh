# Cold (carry .devkit and .reference; export OUT DEADLINE=450): after run37a, which measured
# image_convolutions at 1.004x (YOLOv9-t) and 1.005x (YOLOX-s) where the census put cuDNN's stem at
# about 0.31 ms a step: the image convolution unit cases again (the Focus case's refusal check now
# under autocast), then the census of both steps with image_convolutions (our kernels' own
# times), then YOLOX-s end to end with and without it, alternating.
source .gpu/common.sh
DEADLINE=${DEADLINE:-450}
stamp "start"
prepare_data
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -1 $W/build.log
grep -E "error|invalid-pch" $W/build.log | head -20
stamp "built"
timeout 120 build-gpu/bin/libreyolo_unit_tests -tc='image convolutions*' > $OUT/image_cases.log 2>&1
stamp "image convolution cases rc=$?: $(grep -E 'test cases|assertions' $OUT/image_cases.log | tr '\n' ' ')"
grep -E "ERROR|FAILED|median distance" $OUT/image_cases.log | head -10
fits 40 && census yolo9 t measured+image_convolutions
fits 40 && census yolox s measured+image_convolutions
grep -E "image_conv3x3|Focus|nhwcAddPadding" $OUT/kernels_yolo9t.txt $OUT/kernels_yoloxs.txt | cut -c1-160
e2e_model yoloxs measured measured+image_convolutions measured measured+image_convolutions
stamp "end"

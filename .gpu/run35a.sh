# Cold (carry .devkit and .reference; export OUT DEADLINE=560). The thirty-fifth session: run34c on the code with two launches fewer per small convolution (the weight read in its stored layout by both passes, the weight gradient cast by its last block), besides the thirty-fourth session's code:
# small_convolutions at 16 channels only, its weight gradients on weight_grad_stream's second
# stream (weight_gradient_route.hpp), small_convolutions_wide for all three channel counts. The
# whole build and ctest (the new GPU cases: the route in YOLOv9-t's backward, the rounding case),
# then both names in YOLOv9-t's step.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
# Beside the build (the GPU is idle then): where our kernels wait at the shapes where they lose to
# cuDNN (24 ch 40 x 40, 32 ch 20 x 20) and where they win (16 ch 80 x 80), for the next tuning step.
(small_conv_probe 20 > $W/probe_summary.txt 2>&1; ncu_small_conv > $W/ncu_summary.txt 2>&1) &
cold_start
wait; cat $W/ncu_summary.txt | head -40
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc='*small convolutions*,*aligned channels*' > $OUT/unit_small.log 2>&1
stamp "small convolution cases rc=$?"; grep -E "MESSAGE|ERROR|values|test cases" $OUT/unit_small.log | cut -c1-300 | head -30
fits 60 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
fits 60 && bench_fused $OUT/wide_yolo9t.txt yolo9t small_convolutions_wide
# End to end only if the step gained (alternating, two each as far as the deadline lets).
if grep -qE "speedup 1\.0[0-9]*[1-9]" $OUT/small_yolo9t.txt 2>/dev/null; then
  e2e_yolo9t measured measured+small_convolutions measured measured+small_convolutions
fi
# Where today's default step's time goes (the last census is the twenty-fifth session's).
fits 90 && census yolo9 t measured
stamp "end"

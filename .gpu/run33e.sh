# The probe alone, for the last of the device budget (cold; carry .reference; export OUT): the
# reworked small-convolution kernels against cuDNN with the sweep, and PyTorch's cuDNN on the
# same shapes in the same call. No build.
source .gpu/common.sh
DEADLINE=${DEADLINE:-150}
stamp "start"
small_conv_probe 80
timeout $((DEADLINE - SECONDS - 5)) python3 tests/tools/conv_kernel_breakdown.py yolo9 t --shapes 3 > $OUT/breakdown.txt 2>&1
stamp "conv_kernel_breakdown rc=$?"; grep -vE "^\s*$" $OUT/breakdown.txt | head -30
stamp "end"

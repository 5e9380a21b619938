# The thirty-third session's second call (cold; carry .devkit and .reference; export OUT DEADLINE=540).
# run33a found the small convolutions slower than PyTorch's cuDNN in YOLOv9-t's step (GPU busy
# 18.8 -> 21.4 ms) and their whole-network GPU case with an inf gradient, the aligned-channels one
# 0.25 apart. Now: the reworked kernels (ldmatrix, grids filling the GPU, a weight gradient whose
# blocks walk the bands) in the probe with its sweep, PyTorch's cuDNN on the same shapes in the same
# call, then the build, the whole ctest, the GPU cases again (measured against a float32 pass, the
# worst tensors named) and small_convolutions in YOLOv9-t's step.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
small_conv_probe 80
# PyTorch's cuDNN on the same shapes, beside the build (GPU kernel times, as in the thirty-second session)
(timeout 120 python3 tests/tools/conv_kernel_breakdown.py yolo9 t --shapes 3 > $OUT/breakdown.txt 2>&1; echo "rc=$?" >> $OUT/breakdown.txt) &
cold_start
wait; stamp "conv_kernel_breakdown: $(tail -1 $OUT/breakdown.txt)"; grep -vE "^\s*$" $OUT/breakdown.txt | head -30
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc='small convolutions*,aligned channels*' > $OUT/unit_rounding.log 2>&1
stamp "rounding cases rc=$?"; grep -E "MESSAGE|ERROR|values|test cases|CHECK\(" $OUT/unit_rounding.log | head -40
fits 60 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
stamp "end"

# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE=540).
# The thirty-third session reworked the small convolutions (ldmatrix, grids that fill the GPU, a
# weight gradient whose blocks walk the bands, four per multiprocessor) and measured them in the
# probe only; eleven refused starts left no budget for the build. So: the probe (the new grid's
# first run), the whole build and ctest (the first GPU run of the reworked kernels inside the SDK
# and of the GPU cases measured against a float32 pass), those cases again with their reports
# (worst tensors named, float16 overflow counted on both sides: the first version's inf; the
# cp.async fills and the alignment refusal were added after the probe ran), then
# small_convolutions in YOLOv9-t's step. run34b.sh follows warm.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
small_conv_probe 80
ncu_small_conv  # where the kernels wait (the next tuning step), if Nsight Compute is there
# PyTorch's cuDNN on the same shapes in the same call (four: YOLOv9-t's three small ones and the stem), beside the build
(timeout 120 python3 tests/tools/conv_kernel_breakdown.py yolo9 t --shapes 4 > $OUT/breakdown.txt 2>&1; echo "rc=$?" >> $OUT/breakdown.txt) &
cold_start
wait; stamp "conv_kernel_breakdown: $(tail -1 $OUT/breakdown.txt)"; grep -E "^x[0-9]+ in|rc=" $OUT/breakdown.txt | head -8
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc='small convolutions*,aligned channels*' > $OUT/unit_rounding.log 2>&1
stamp "rounding cases rc=$?"; grep -E "MESSAGE|ERROR|values|test cases|CHECK\(" $OUT/unit_rounding.log | head -40
fits 60 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
stamp "end"

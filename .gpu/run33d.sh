# run33c for what was left of the device budget (cold; carry .devkit and .reference; export OUT
# DEADLINE=...): the probe with its sweep, PyTorch's cuDNN on the same shapes beside a build of the
# unit tests alone (cut at the deadline), then the two candidates' GPU cases if it finished.
source .gpu/common.sh
DEADLINE=${DEADLINE:-320}
stamp "start"
small_conv_probe 80
(timeout 120 python3 tests/tools/conv_kernel_breakdown.py yolo9 t --shapes 3 > $OUT/breakdown.txt 2>&1; echo "rc=$?" >> $OUT/breakdown.txt) &
timeout $((DEADLINE - SECONDS - 40)) scripts/gpu-build.sh libreyolo_unit_tests > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
tail -2 $W/build.log; grep -E "error|invalid-pch" $W/build.log | head -20
stamp "built"
wait; stamp "conv_kernel_breakdown: $(tail -1 $OUT/breakdown.txt)"; grep -vE "^\s*$" $OUT/breakdown.txt | head -30
if [ -x build-gpu/bin/libreyolo_unit_tests ] && fits 20; then
  timeout $((DEADLINE - SECONDS - 3)) build-gpu/bin/libreyolo_unit_tests -tc='small convolutions*,aligned channels*' > $OUT/unit_rounding.log 2>&1
  stamp "rounding cases rc=$?"; grep -E "MESSAGE|ERROR|values|test cases|CHECK\(" $OUT/unit_rounding.log | head -40
fi
stamp "end"

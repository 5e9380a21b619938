# run33b cut down to a smaller device budget (cold; carry .devkit and .reference; export OUT
# DEADLINE=...): the probe with its sweep, PyTorch's cuDNN on the same shapes beside a build of the
# unit tests, the host and the two YOLO plugins only, the two candidates' GPU cases (against a
# float32 pass, worst tensors named), small_convolutions in YOLOv9-t's step, then the whole unit
# binary if time is left (run33a ran the whole ctest at the session's first code).
source .gpu/common.sh
DEADLINE=${DEADLINE:-420}
stamp "start"
small_conv_probe 80
(timeout 120 python3 tests/tools/conv_kernel_breakdown.py yolo9 t --shapes 3 > $OUT/breakdown.txt 2>&1; echo "rc=$?" >> $OUT/breakdown.txt) &
prepare_data
scripts/gpu-build.sh libreyolo_unit_tests libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
tail -1 $W/build.log; grep -E "error|invalid-pch" $W/build.log | head -20
stamp "built"
wait; stamp "conv_kernel_breakdown: $(tail -1 $OUT/breakdown.txt)"; grep -vE "^\s*$" $OUT/breakdown.txt | head -30
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc='small convolutions*,aligned channels*' > $OUT/unit_rounding.log 2>&1
stamp "rounding cases rc=$?"; grep -E "MESSAGE|ERROR|values|test cases|CHECK\(" $OUT/unit_rounding.log | head -40
fits 50 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
if fits 100; then
  timeout $((DEADLINE - SECONDS - 5)) build-gpu/bin/libreyolo_unit_tests > $OUT/unit_all.log 2>&1
  stamp "whole unit binary rc=$?: $(grep -E 'test cases:' $OUT/unit_all.log)"; grep -E "ERROR|values:" $OUT/unit_all.log | head -10
fi
stamp "end"

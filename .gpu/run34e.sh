# The thirty-fourth session's last device seconds (cold; export OUT DEADLINE=...): too few for the
# whole build and ctest, so only the unit tests' binary (and what it links) and the new GPU cases:
# the SDK's route in YOLOv9-t's backward, the small convolutions' cases, the rounding cases with
# gamma 0.1. Whatever finishes before the deadline is what comes back.
source .gpu/common.sh
DEADLINE=${DEADLINE:-200}
stamp "start"
timeout $((DEADLINE - SECONDS - 25)) scripts/gpu-build.sh libreyolo_unit_tests > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
tail -1 $W/build.log; grep -E "error" $W/build.log | head -10
stamp "built"
t=$((DEADLINE - SECONDS - 3))
[ $t -gt 5 ] && timeout $t build-gpu/bin/libreyolo_unit_tests -tc='*small convolutions*,*aligned channels*YOLOX*,rounding*' > $OUT/unit_new.log 2>&1
stamp "cases rc=$?"; grep -E "MESSAGE|ERROR|values|test cases|skipped" $OUT/unit_new.log | cut -c1-300 | head -40
stamp "end"

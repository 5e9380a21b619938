# Cold, minimal (carry .devkit; export OUT DEADLINE=...): for a budget too small for run39a. The
# build, the new prediction_rows cases and the cudnn_batch_norm_silu cases first (so that a cut
# call still says whether they pass), then the whole ctest in what is left.
source .gpu/common.sh
DEADLINE=${DEADLINE:-330}
stamp "start"
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -1 $W/build.log
grep -E "error|invalid-pch" $W/build.log | head -20
stamp "built"
left=$((DEADLINE - SECONDS - 3)); [ $left -gt 60 ] && left=60
[ $left -gt 5 ] && (cd build-gpu && timeout $left ./bin/libreyolo_unit_tests -tc='*prediction rows*,anchor rows*,*cuDNN*,*cudnn*' > $OUT/unit_new.log 2>&1; echo "rc=$?" >> $OUT/unit_new.log)
grep -E "ERROR|CHECK|values|test cases|rc=" $OUT/unit_new.log | head -30
stamp "new cases done"
left=$((DEADLINE - SECONDS - 5))
[ $left -gt 20 ] && (cd build-gpu && timeout $left ctest -j8 --timeout 140 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|Not Run|Timeout" $OUT/ctest.log | head -20
stamp "end"

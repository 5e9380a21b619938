# The twenty-eighth session's call when little device time is left (cold; carry .devkit): build only
# the unit binary (libraries, plugins, tests) and run, first, the GPU cases of session 27's code
# (sync BatchNorm on PyTorch's CUDA kernels, NCCL with one rank through the new bucket packing),
# then the whole unit binary as time allows. Not the whole ctest: it would not fit.
source .gpu/common.sh
stamp "start"
scripts/gpu-build.sh libreyolo_unit_tests > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
tail -1 $W/build.log; grep -E "error" $W/build.log | head -10
stamp "built"
U=build-gpu/bin/libreyolo_unit_tests
(cd build-gpu/tests && OMP_NUM_THREADS=2 timeout 60 ../bin/libreyolo_unit_tests \
  -tc="on CUDA: two ranks*,distributed: NCCL*" > $OUT/unit_session27_gpu.txt 2>&1; echo "rc=$?" >> $OUT/unit_session27_gpu.txt)
grep -E "ERROR|values|test cases|Status|rc=" $OUT/unit_session27_gpu.txt | head -20
stamp "session-27 GPU cases done"
(cd build-gpu/tests && OMP_NUM_THREADS=8 timeout $(( ${DEADLINE:-330} - SECONDS )) ../bin/libreyolo_unit_tests \
  > $OUT/unit_all.txt 2>&1; echo "rc=$?" >> $OUT/unit_all.txt)
grep -E "ERROR|values|test cases|Status|rc=" $OUT/unit_all.txt | head -20
stamp "end"

# Cold, one call (carry .devkit and .reference; export OUT DEADLINE=...): the forty-fifth session's
# change built (eager_optimizer_step in the measured default; the eager hint's recorder wiring),
# then the whole cuda ctest in what the deadline leaves (at most 130 s). Run45b follows at once on
# the warm machine (the build kept).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 130 ? DEADLINE - SECONDS : 130 ))
grep -E "eager_fused" $OUT/ctest.log | head -3
stamp "end"

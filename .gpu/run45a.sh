# Cold, one call (carry .devkit and .reference; export OUT DEADLINE=...): the forty-fifth session's
# change built (eager_optimizer_step in the measured default; the eager hint's recorder wiring),
# then the whole cuda ctest in what the deadline leaves (at most 115 s), and the eager
# end-to-end pair where it fits. Run45b follows at once on
# the warm machine (the build kept).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 115 ? DEADLINE - SECONDS : 115 ))
grep -E "eager_fused" $OUT/ctest.log | head -3
# Where the deadline leaves room: the eager default end to end with and without the fused
# optimizer step (both or neither: one alone compares with nothing).
pair() {  # NAME [k=v...]
  local name=$1; shift
  timeout 50 $H bench train model=yolo9t $EAGER_COMMON batch=16 epochs=2 eval_interval=2 name=$name "$@" > $OUT/$name.log 2>&1
  stamp "$name rc=$?: $(grep -E 'bench train:' $OUT/$name.log | cut -c1-170) $(grep -c 'optimizer step (unscale' $OUT/$name.log) fused-step lines"
}
fits 100 && { pair y9_eager_default; pair y9_eager_without fused_kernels=measured-eager_optimizer_step; }
stamp "end"

# Cold, one call (carry .devkit and .reference; export OUT DEADLINE=...): the forty-fourth
# session's change (the fused optimizer step in eager steps, the eager hint) built, the whole
# cuda ctest (with the new GPU-only eager_fused_optimizer_step), then the eager step with and
# without the fused optimizer step (one process), YOLOv9-t end to end eager, and the captured step.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 130 ? DEADLINE - SECONDS : 130 ))  # what the deadline leaves, at most 130 s
grep -E "eager_fused" $OUT/ctest.log | head -3
fits 60 && { timeout 60 $H bench fused model=yolo9t $EAGER_COMMON batch=16 steps=8 warmup=3 fused_kernels=measured+eager_optimizer_step > $OUT/eager_fused_step.txt 2>&1; stamp "eager measured vs measured+eager_optimizer_step rc=$?: $(grep -E 'composed:|fused: |speedup|optimizer step' $OUT/eager_fused_step.txt | cut -c1-420)"; }
fits 50 && { timeout 50 $H bench train model=yolo9t $EAGER_COMMON batch=16 epochs=3 eval_interval=3 name=eager_e2e > $OUT/yolo9t_eager.log 2>&1; stamp "ours yolo9t eager rc=$?: $(grep -E 'bench train:' $OUT/yolo9t_eager.log | cut -c1-160)"; }
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=30 warmup=10 > $OUT/step_b16.txt 2>&1; stamp "captured batch 16 rc=$?: $(grep -E 'fastest' $OUT/step_b16.txt | cut -c1-300)"; }
# Why the eager EMA took 9.1 ms of host time (five multi-tensor operators): a multi-tensor operator
# that leaves its fast path runs one aten::mul_ / aten::add_ per tensor, which op_callers shows
# under _foreach_mul_ / _foreach_add_ (about 1,150 a step for YOLOv9-t's averaged tensors).
for op in aten::mul_ aten::add_; do
  fits 40 && { timeout 40 $H bench step model=yolo9t $EAGER_COMMON batch=16 steps=3 warmup=2 op_callers=$op > $OUT/eager_callers_${op#aten::}.txt 2>&1; stamp "eager callers of $op rc=$?: $(grep -A6 'who calls' $OUT/eager_callers_${op#aten::}.txt | cut -c1-200 | tr '\n' ' ')"; }
done
stamp "end"

# Cold, one call, for a session left with under about 650 device seconds (carry .devkit and
# .reference; export OUT DEADLINE=...): too few for the whole build and ctest, so the host and the
# YOLO plugins only, the GPU-only ctest eager_fused_optimizer_step (the default's eager fused
# optimizer step and the eager hint), then the eager default end to end with and without the fused
# optimizer step, and YOLOX-s's eager step A/B in one process.
source .gpu/common.sh
DEADLINE=${DEADLINE:-450}
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built the host and YOLO plugins rc=$?"
grep -E "error" $W/build.log | head -10
(cd build-gpu && timeout 90 ctest -R eager_fused_optimizer_step --output-on-failure > $OUT/ctest_eager.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest_eager.log)
stamp "eager ctest: $(grep -E 'Passed|Failed|Skipped|ctest rc|ok:|FAILED' $OUT/ctest_eager.log | tr '\n' ' ' | cut -c1-300)"
e2e() {  # NAME MODEL [k=v...]: bench train eager, 2 epochs, stamped
  local name=$1 model=$2; shift 2
  timeout 50 $H bench train model=$model $EAGER_COMMON batch=16 epochs=2 eval_interval=2 name=$name "$@" > $OUT/$name.log 2>&1
  stamp "$name rc=$?: $(grep -E 'bench train:' $OUT/$name.log | cut -c1-170) $(grep -c 'optimizer step (unscale' $OUT/$name.log) fused-step lines"
}
fits 100 && { e2e y9_eager_default yolo9t; e2e y9_eager_without yolo9t fused_kernels=measured-eager_optimizer_step; }
eager_ab_yoloxs
stamp "end"

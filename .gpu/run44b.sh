# Cold, one call, for a session left with about 450 device seconds (carry .devkit and .reference;
# export OUT DEADLINE=...): too few for the whole build and ctest (the forty-fourth session's
# build took 382 s), so only what the eager fused optimizer step needs: the host and the YOLO
# plugins, the GPU-only ctest eager_fused_optimizer_step, then the eager step with and without the
# fused optimizer step (bench fused, one process: losses and gradients compared), and YOLOv9-t
# end to end eager.
source .gpu/common.sh
DEADLINE=${DEADLINE:-390}
stamp "start"
prepare_data
scripts/gpu-build.sh ${TARGETS:-libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox} > $W/build.log 2>&1; stamp "built ${TARGETS:-the host and YOLO plugins} rc=$?"
grep -E "error" $W/build.log | head -10
(cd build-gpu && timeout 90 ctest -R eager_fused_optimizer_step --output-on-failure > $OUT/ctest_eager.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest_eager.log)
stamp "eager ctest: $(grep -E 'Passed|Failed|Skipped|ctest rc|ok:|FAILED' $OUT/ctest_eager.log | tr '\n' ' ' | cut -c1-300)"
fits 60 && { timeout 60 $H bench fused model=yolo9t $EAGER_COMMON batch=16 steps=8 warmup=3 fused_kernels=measured+eager_optimizer_step > $OUT/eager_fused_step.txt 2>&1; stamp "eager measured vs measured+eager_optimizer_step rc=$?: $(grep -E 'composed:|fused: |speedup|optimizer step' $OUT/eager_fused_step.txt | cut -c1-420)"; }
fits 50 && { timeout 50 $H bench train model=yolo9t $EAGER_COMMON batch=16 epochs=3 eval_interval=3 name=eager_e2e > $OUT/yolo9t_eager.log 2>&1; stamp "ours yolo9t eager rc=$?: $(grep -E 'bench train:' $OUT/yolo9t_eager.log | cut -c1-160)"; }
stamp "end"

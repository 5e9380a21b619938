# The thirtieth session's second call (warm after run29c.sh, which built only the host and the YOLO
# plugins; carry .devkit and .reference; export OUT DEADLINE): the rest of the cuda build and the
# whole ctest (runs the alternate_step_graphs GPU case and the other session-29 changes for the
# first time), then, as the DEADLINE allows, the YOLOX-s end-to-end figures with the fixed epoch
# clock and LibreYOLO's YOLOX-s beside them.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
[ -d $W/coco128x8 ] || prepare_data
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -1 $W/build.log
grep -E "error|invalid-pch" $W/build.log | head -20
stamp "built"
(cd build-gpu && timeout 170 ctest -j8 --timeout 160 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|ERROR|values:" $OUT/ctest.log | head -20
stamp "ctest done"
n=0
for fused in measured measured+native_batch_norm measured; do
  n=$((n + 1)); fits 40 || break
  timeout 40 $H bench train model=yoloxs $YOLO_COMMON batch=16 epochs=3 eval_interval=3 name=x_e2e_$n fused_kernels=$fused > $OUT/x_e2e_$n.log 2>&1
  stamp "ours yoloxs $fused rc=$?: $(grep -E 'bench train:' $OUT/x_e2e_$n.log | cut -c1-120)"
done
fits 90 && lib_trainbench yoloxs yolox s
stamp "end"

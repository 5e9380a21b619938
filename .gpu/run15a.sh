# Planned for the fifteenth session's first call (written in the fourteenth, not run yet): cold
# build; the whole cuda ctest at the fourteenth session's final tree (its calls ran it only at
# 4f172d8), with the fused pools' check (pool_check: the same-size max pool's first GPU run);
# issue #21's equality checks at 50 steps (bench capture: eager vs the whole-step
# graph; bench step's loss trajectories with fused_kernels=off vs measured); then end to end
# beside LibreYOLO's own trainer in the same call (YOLOv9-t, then YOLOX-s), for the ratios; last,
# which PyTorch ops launch YOLOv9-t's kernels (tests/tools/op_attribution.py, LibreYOLO's module).
# Carry .devkit and .reference (docs/gpu-machine.md says how to make them). At most 8 files.
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017  # .reference drops val2017 (size)
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -2 $W/build.log; grep -E "error" $W/build.log | head -20
stamp "built"
(cd build-gpu && timeout 60 ctest -V -R pool_check > $W/pool.log 2>&1; timeout 170 ctest -j8 --timeout 150 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log; cat $W/pool.log >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|\(ok\)|TOLERANCE|DIFFERENT" $OUT/ctest.log | head -20
stamp "ctest done"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 70 $H bench capture model=yolo9t $common steps=40 warmup=10 > $OUT/capture.log 2>&1; stamp "capture yolo9t rc=$? $(grep -E 'speedup' $OUT/capture.log | cut -c1-300)"
for fk in off measured; do
  timeout 40 $H bench step model=yolo9t $common steps=40 warmup=10 fused_kernels=$fk json=$OUT/step_$fk.json > $W/s.log 2>&1
  stamp "step yolo9t $fk: $(grep 'bench step:' $W/s.log | cut -c1-330)"
done
stamp "trajectories off vs measured: $(python3 tests/tools/compare_loss_trajectories.py $OUT/step_off.json $OUT/step_measured.json)"
for fk in measured max_pool_same measured max_pool_same; do  # the SPP's fused max pool in YOLOX-s's step (not yet measured)
  timeout 35 $H bench step model=yoloxs $common steps=60 warmup=20 fused_kernels=$fk > $W/s.log 2>&1
  stamp "step yoloxs $fk: $(grep 'bench step:' $W/s.log | cut -c1-330)"
done
for m in "yolo9 t yolo9t" "yolox s yoloxs"; do
  set -- $m; [ $SECONDS -lt 470 ] || break
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $R/libreyolo_trainbench.py $W/lib_$3 $1:$2:16 > $W/lib_$3.log 2>&1)
  stamp "LibreYOLO $3: $(tail -3 $W/lib_$3.log | tr '\n' ' ' | cut -c1-300)"; cat $W/lib_$3.log >> $OUT/reference.log
  timeout 45 $H bench train model=$3 $common epochs=3 eval_interval=3 name=e2e_$3 > $W/t.log 2>&1
  stamp "ours $3 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
[ $SECONDS -lt 555 ] && { timeout 40 python3 tests/tools/op_attribution.py yolo9 t > $OUT/ops_yolo9t.txt 2>&1; stamp "op attribution rc=$?"; head -25 $OUT/ops_yolo9t.txt; }
stamp "end"

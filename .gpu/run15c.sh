# The fifteenth session's second (last) call: cold build at the tree with the max pool's test
# fixed (its gradient rule is PyTorch's CPU kernel's) and max_pool_same in the measured default;
# the whole cuda ctest; YOLOX-s's step with the SPP's fused max pool vs without (loss trajectories
# of 50 steps); issue #21's learning checks with the whole-step graph and the default fused kernels
# (YOLOv9-t memorisation, 200 epochs: 2026-11-29 mAP50 0.835; default recipe 100 epochs:
# 2026-11-29 final training loss 8.968); then YOLOX-s end to end beside LibreYOLO if time is left.
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -1 $W/build.log; grep -E "error" $W/build.log | head -20
stamp "built"
(cd build-gpu && timeout 150 ctest -j8 --timeout 140 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|ERROR|values:" $OUT/ctest.log | head -20
stamp "ctest done"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for fk in avg_pool_2x2 measured; do  # YOLOX has no 2x2 average pool: avg_pool_2x2 = its old default
  timeout 30 $H bench step model=yoloxs $common steps=40 warmup=10 fused_kernels=$fk json=$W/x_$fk.json > $W/s.log 2>&1
  stamp "step yoloxs $fk: $(grep 'bench step:' $W/s.log | cut -c1-300)"
done
stamp "yoloxs trajectories old default vs measured: $(python3 tests/tools/compare_loss_trajectories.py $W/x_avg_pool_2x2.json $W/x_measured.json)"
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 seed=0 cuda_graph=true project=/tmp/runs"
timeout 150 $H train model=yolo9t $c epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 name=memorise > $W/m.log 2>&1
stamp "memorisation rc=$?: $(grep -E 'mAP50' $W/m.log | tail -2 | tr '\n' ' ' | cut -c1-300)"
cp /tmp/runs/memorise/results.csv $OUT/memorise_results.csv 2>/dev/null; grep -E 'cuda_graph|fused_kernels|step graph|whole' $W/m.log | head -8 > $OUT/memorise_notes.txt; tail -5 $W/m.log >> $OUT/memorise_notes.txt
timeout 90 $H train model=yolo9t $c epochs=100 eval_interval=100 name=default100 > $W/d.log 2>&1
stamp "default 100 rc=$?: $(grep -E '^epoch 100/' $W/d.log | cut -c1-200)"
cp /tmp/runs/default100/results.csv $OUT/default100_results.csv 2>/dev/null
if [ $SECONDS -lt 480 ]; then
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 60 python3 $R/libreyolo_trainbench.py $W/lib_x yolox:s:16 > $W/lib_x.log 2>&1)
  stamp "LibreYOLO yoloxs: $(tail -1 $W/lib_x.log | cut -c1-300)"; cat $W/lib_x.log >> $OUT/reference.log
  timeout 40 $H bench train model=yoloxs $common epochs=3 eval_interval=3 name=e2e_x > $W/t.log 2>&1
  stamp "ours yoloxs rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"
fi
stamp "end"

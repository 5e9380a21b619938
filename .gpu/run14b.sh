# Fourteenth session, call B: the whole step with fresh gradients (no per-parameter addition),
# the fused 2x2 average pool (unit cases, check tool, in the step alone), and where the two
# families stand end to end (bench train, 3 epochs, as the commands).
source .gpu/common.sh
stamp "start"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128; ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017; bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -2 $W/build.log; grep -E "error" $W/build.log | head -20
stamp "built"
F=$OUT/unit.log
timeout 150 build-gpu/bin/libreyolo_unit_tests -tc='*avg_pool*,*capture*,*fused*,*BatchNorm + SiLU*,*EMA*,*optimizer*,*scaler*' > $F 2>&1; echo "unit rc=$?" >> $F; tail -4 $F
timeout 60 build-gpu/bin/avg_pool_2x2_check >> $F 2>&1; echo "check rc=$?" >> $F; tail -7 $F
stamp "checks done"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 60 $H bench capture model=yolo9t $common steps=24 warmup=10 > $OUT/capture.log 2>&1; stamp "capture yolo9t rc=$? $(grep -E 'speedup' $OUT/capture.log | cut -c1-300)"
for run in "yolo9t off" "yolo9t avg_pool_2x2" "yoloxs off" "yolo9t off" "yolo9t avg_pool_2x2"; do
  set -- $run; [ $SECONDS -lt 440 ] || break
  timeout 40 $H bench step model=$1 $common steps=100 warmup=20 fused_kernels=$2 > $W/s.log 2>&1
  stamp "step $1 $2: $(grep 'bench step:' $W/s.log | cut -c1-330)"; cat $W/s.log >> $OUT/steps.log
done
for m in yolo9t yoloxs; do
  [ $SECONDS -lt 520 ] || break
  timeout 45 $H bench train model=$m $common epochs=3 eval_interval=3 fused_kernels=avg_pool_2x2 name=e2e_$m > $W/t.log 2>&1
  stamp "e2e $m rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
stamp "end"

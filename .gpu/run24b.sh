# Twenty-fourth session's warm call after run24a: (1) the RepConvN probe (tests/tools/
# rep_pair_experiment.py: YOLOv9's 3x3 + 1x1 pair as one stacked convolution and BatchNorm, on
# LibreYOLO's own network); (2) end to end beside LibreYOLO's trainer, YOLOv9-t then YOLOX-s, ours
# with FUSED and with the default alone (as run23b); (3) YOLOv9-t's batch-8 step both ways if
# time is left.
source .gpu/common.sh
FUSED=${FUSED:-measured+weight_grad_stream+block_tails}
stamp "start ($FUSED)"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
(cd tests/tools && timeout 150 python3 rep_pair_experiment.py --steps 3 --replays 50 > $OUT/rep_pair.txt 2>&1)
stamp "rep pair probe rc=$?:"; tail -5 $OUT/rep_pair.txt
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:yolo9:t yoloxs:yolox:s; do
  IFS=: read -r ours family size <<< "$pair"
  [ $SECONDS -lt 420 ] || break
  lib_trainbench $ours $family $size
  for fused in $FUSED measured; do
    timeout 60 $H bench train model=$ours $common epochs=3 eval_interval=3 name=e2e_${ours}_${fused//+/_} fused_kernels=$fused > $W/t.log 2>&1
    stamp "ours $ours $fused rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
  done
done
for fused in $FUSED measured; do
  [ $SECONDS -lt 530 ] || break
  timeout 45 $H bench step model=yolo9t ${common/batch=16/batch=8} steps=40 warmup=10 fused_kernels=$fused json=$OUT/step8_${fused//+/_}.json > $W/s.log 2>&1
  stamp "step batch 8 yolo9t $fused rc=$?: $(grep -E 'bench step:' $W/s.log | head -1 | cut -c1-400)"; cat $W/s.log >> $OUT/step8.log
done
stamp "end"

# Warm, after run25a: end to end beside LibreYOLO's trainer (YOLOv9-t), ours with FUSED and with
# today's default; then YOLOX-s ours both ways if FUSED applies to it.
source .gpu/common.sh
FUSED=${FUSED:-measured+stacked_convolutions}
stamp "start ($FUSED)"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
lib_trainbench yolo9t yolo9 t
for model in yolo9t yoloxs; do
  for fused in $FUSED measured; do
    [ $SECONDS -lt 520 ] || break
    timeout 60 $H bench train model=$model $common epochs=3 eval_interval=3 name=e2e_${model}_${fused//+/_} fused_kernels=$fused > $W/t.log 2>&1
    stamp "ours $model $fused rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
  done
done
stamp "end"

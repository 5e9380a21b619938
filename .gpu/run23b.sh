# Twenty-third session's third call (warm, after run23a and run23c): end to end beside LibreYOLO's
# trainer in the same call, YOLOv9-t then YOLOX-s (LibreYOLO first each time, its second epoch; ours
# `bench train`, epochs 2-3 of 3), ours with FUSED (the candidates run23a/run23c showed equal, or
# within tolerance, and faster, e.g. FUSED=measured+weight_grad_stream+block_tails, the default here), then ours with the
# default alone; then YOLOv9-t's step at batch 8 both ways.
source .gpu/common.sh
FUSED=${FUSED:-measured+weight_grad_stream+block_tails}
stamp "start ($FUSED)"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:yolo9:t yoloxs:yolox:s; do
  IFS=: read -r ours family size <<< "$pair"
  lib_trainbench $ours $family $size
  for fused in $FUSED measured; do
    timeout 60 $H bench train model=$ours $common epochs=3 eval_interval=3 name=e2e_${ours}_$fused fused_kernels=$fused > $W/t.log 2>&1
    stamp "ours $ours $fused rc=$?: $(grep -E 'bench train:|second stream' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
  done
done
# #21's batch-8 target (fastest step within 1.03x of GPU busy), with and without it.
for fused in $FUSED measured; do
  [ $SECONDS -lt 520 ] || break
  timeout 45 $H bench step model=yolo9t ${common/batch=16/batch=8} steps=40 warmup=10 fused_kernels=$fused json=$OUT/step8_${fused//+/_}.json > $W/s.log 2>&1
  stamp "step batch 8 yolo9t $fused rc=$?: $(grep -E 'fastest' $W/s.log | head -1 | cut -c1-400)"; cat $W/s.log >> $OUT/step8.log
done
stamp "end"

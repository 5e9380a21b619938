# Twenty-third session's second call (warm, right after run23a): the candidates run23a did not
# reach, then YOLOX-s with the three that apply to it (the branches, the tails, the class loss), then YOLOv9-t with
# every candidate together (one process: the default against the default plus all of them).
# Set FIRST to the YOLOv9-t candidates run23a did not time (default: none).
source .gpu/common.sh
stamp "start"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
pairs=""
for name in ${FIRST:-}; do pairs="$pairs yolo9t:$name"; done
pairs="$pairs yoloxs:branch_streams yoloxs:block_tails yoloxs:class_bce yolo9t:branch_streams+block_tails+box_dfl_loss+class_bce+weight_grad_stream"
for pair in $pairs; do
  IFS=: read -r model names <<< "$pair"
  [ $SECONDS -lt 520 ] || break
  timeout 75 $H bench fused model=$model $common steps=30 warmup=10 fused_kernels=measured+$names json=$OUT/fused_${names//+/_}_$model.json > $W/f.log 2>&1
  stamp "fused $names $model rc=$?: $(grep -E 'speedup|identical|equal|second stream|side by side' $W/f.log | head -5 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
done
stamp "end"

# Twentieth session, third call (warm, right after run21c): end to end beside LibreYOLO's trainer
# in the same call, YOLOv9-t then YOLOX-s (LibreYOLO first each time, `.reference/
# libreyolo_trainbench.py`, its second epoch; ours `bench train`, epochs 2-3 of 3).
source .gpu/common.sh
stamp "start"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:yolo9:t yoloxs:yolox:s; do
  IFS=: read -r ours family size <<< "$pair"
  lib_trainbench $ours $family $size
  timeout 60 $H bench train model=$ours $common epochs=3 eval_interval=3 name=e2e_$ours > $W/t.log 2>&1
  stamp "ours $ours rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
stamp "end"

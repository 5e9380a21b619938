#!/usr/bin/env bash
# The README's first command: set up, build, then the main job of our users on the bundled
# 16-image sample: fine-tune LibreYOLO's pretrained YOLOv9-t (found in the working folder,
# $LIBREYOLO_WEIGHTS or ~/.cache/libreyolo, else downloaded), or train it from scratch when the
# weights cannot be had (offline), saying which; then predict the val images and say where the
# pictures are. About 4 minutes on a 2-core CPU after the build; on a GPU it uses it (device=auto).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
host=build/bin/libreyolo-host
data=datasets/coco16/data.yaml
out=runs/demo
"$host" version
# val first: it fetches the weights (or fails clearly) and shows where the pretrained model starts.
if "$host" val model=LibreYOLO9t.pt data=$data imgsz=320 batch=8 project=$out name=pretrained exist_ok=true; then
  model=LibreYOLO9t.pt
  echo "demo: fine-tuning LibreYOLO's pretrained YOLOv9-t (LibreYOLO9t.pt)"
else
  model=yolo9t
  echo "demo: LibreYOLO9t.pt could not be had (see above): training YOLOv9-t from scratch instead," \
       "which on 16 images learns little; put LibreYOLO9t.pt in ~/.cache/libreyolo to fine-tune"
fi
"$host" train model=$model data=$data epochs=30 imgsz=320 batch=8 eval_interval=10 project=$out name=yolo9t exist_ok=true
weights=$out/yolo9t/weights/best.pt
[ -f "$weights" ] || weights=$out/yolo9t/weights/last.pt
"$host" predict model=$weights source=datasets/coco16/images/val imgsz=320 project=$out name=predict exist_ok=true
echo
echo "demo: training plots in $out/yolo9t/ (results.png, labels.jpg, train_batch0.jpg, PR_curve.png, F1_curve.png," \
     "confusion_matrix_normalized.png, val_batch0_pred.jpg)," \
     "results.csv and weights/; annotated val images in $out/predict/"

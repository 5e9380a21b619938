#!/usr/bin/env bash
# The README's first command: set up, build, then run the main job on the bundled dataset.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
host=build/bin/libreyolo-host
"$host" version
"$host" families
# A short real training of the SDK's example family on the bundled 24-image sample, then
# validation of its best checkpoint. (Real families, YOLOv9 first, are next.)
"$host" train model=examplen data=datasets/coco16/data.yaml epochs=3 batch=8 imgsz=320 \
    project=runs/demo name=examplen exist_ok=true
"$host" val model=runs/demo/examplen/weights/best.pt data=datasets/coco16/data.yaml imgsz=320 \
    project=runs/demo name=val exist_ok=true

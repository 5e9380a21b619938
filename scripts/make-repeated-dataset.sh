#!/usr/bin/env bash
# Writes a data.yaml whose train split lists a YOLO dataset's train images N times (COCO128 x 8
# = 1,024 images: the benchmark set of docs/benchmarks.md and the reference numbers).
# Usage: scripts/make-repeated-dataset.sh SOURCE_DATASET_DIR OUT_DIR [N=8]
#   SOURCE_DATASET_DIR holds data.yaml, images/train2017, images/val2017 (COCO128's layout).
set -euo pipefail
src=$(cd "$1" && pwd); out=$2; n=${3:-8}
mkdir -p "$out"
: > "$out/train.txt"
for _ in $(seq "$n"); do ls "$src"/images/train2017/*.jpg >> "$out/train.txt"; done
{
  echo "# $(basename "$src") train images x $n (written by scripts/make-repeated-dataset.sh)"
  echo "path: ."
  echo "train: train.txt"
  echo "val: $src/images/val2017"
  sed -n '/^names:/,$p' "$src/data.yaml"
} > "$out/data.yaml"
echo "$out/data.yaml: $(wc -l < "$out/train.txt") train images"

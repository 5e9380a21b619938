# The seventeenth session's fourth call (warm after run17c): end to end beside LibreYOLO's trainer,
# ours with the GPU Hungarian matching (fused_kernels=linear_assignment): RT-DETR-r18 (ours 3
# epochs, 2-3 timed), D-FINE-n (ours 2 epochs; LibreYOLO given 130 s: run17b's 90 s ended it at
# 62 of 64 batches of its timed epoch).
source .gpu/common.sh
stamp "start"
[ -x $H ] || { scripts/gpu-build.sh > $W/build.log 2>&1; stamp "built rc=$?"; }
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true fused_kernels=linear_assignment"
eval "$(sed -n '/^pair() {/,/^}/p' .gpu/run17a.sh)"
PAIR_DEADLINE=300
pair rtdetrr18 rtdetr:r18:16 75 45 3 1
pair dfinen dfine:n:16 130 60 2 0
stamp "end"

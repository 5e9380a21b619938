# The seventeenth session's second call: the end-to-end pairs run17a had no time left for
# (RT-DETR-r18 then D-FINE-n beside LibreYOLO's trainer, same call). Builds only if the machine is cold.
source .gpu/common.sh
stamp "start"
[ -x $H ] || { scripts/gpu-build.sh > $W/build.log 2>&1; stamp "built rc=$?"; }
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
eval "$(sed -n '/^pair() {/,/^}/p' .gpu/run17a.sh)"
PAIR_DEADLINE=450
[ -n "${ONLY_DFINE:-}" ] || pair rtdetrr18 rtdetr:r18:16 75 45 3 1
pair dfinen dfine:n:16 90 60 2 0
stamp "end"

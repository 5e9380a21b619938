# The thirty-first session's last call (cold; carry .devkit and .reference; export OUT DEADLINE):
# the whole cuda build and ctest with batch_norm_silu_large in the default, then, as time allows,
# YOLOv9-t's memorisation check with the new default (COCO128's train images as both splits,
# augmentation off, 200 epochs; the twenty-sixth session's default reached mAP50 0.821) and YOLOX-s
# end to end with the new default and the old one (measured less batch_norm_silu_large, named out).
source .gpu/common.sh
DEADLINE=${DEADLINE:-500}
stamp "start"
cold_start
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
m="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 seed=0 cuda_graph=true project=/tmp/runs"
if fits 150; then
  timeout 150 $H train model=yolo9t $m epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 name=memorise > $W/m.log 2>&1
  stamp "memorisation rc=$?: $(grep -E 'mAP50' $W/m.log | tail -2 | tr '\n' ' ' | cut -c1-300)"
  cp $W/m.log $OUT/memorise.log; cp /tmp/runs/memorise/results.csv $OUT/memorise_results.csv 2>/dev/null
fi
OLD=avg_pool_2x2+max_pool_same+weight_casts+task_aligned_metric+task_aligned_selection+simota_cost+simota_selection+weight_grad_stream+block_tails+dense_slices+box_dfl_loss+class_bce+half_upsample
n=0
for fused in measured $OLD; do
  n=$((n + 1)); fits 30 || break
  timeout 30 $H bench train model=yoloxs $YOLO_COMMON batch=16 epochs=3 eval_interval=3 name=x_$n fused_kernels=$fused > $OUT/x_$n.log 2>&1
  stamp "ours yoloxs $( [ $n = 1 ] && echo measured || echo 'measured less batch_norm_silu_large') rc=$?: $(grep -E 'bench train:' $OUT/x_$n.log | cut -c1-160)"
done
stamp "end"

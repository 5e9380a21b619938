# The thirty-second session's third call (cold; carry .devkit and .reference; export OUT DEADLINE):
# the fusion probe again (scale and bias also as float16, as cuDNN's own ReLU sample declares them;
# execution failures now named), then YOLOv9-t's memorisation check, three runs side by side
# (workers=4 each): the default before batch_norm_silu_large joined it, seeds 0 and 1, and today's
# default, seed 1 (run32b ran seed 0: mAP50 0.760 at epoch 200, against 0.821 in the twenty-sixth
# session). Is the drop the new kernel's or the spread between runs?
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
fusion_probe 200
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 > $W/build.log 2>&1; stamp "built rc=$?"; tail -2 $W/build.log
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
OLD=avg_pool_2x2+max_pool_same+weight_casts+task_aligned_metric+task_aligned_selection+simota_cost+simota_selection+weight_grad_stream+block_tails+dense_slices+box_dfl_loss+class_bce+half_upsample
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 cuda_graph=true"
rm -f /tmp/runs/*.pid
our_train old_0 model=yolo9t $c seed=0 fused_kernels=$OLD
our_train old_1 model=yolo9t $c seed=1 fused_kernels=$OLD
our_train new_1 model=yolo9t $c seed=1 fused_kernels=measured
wait_runs
memorisation_report old_0 old_1 new_1
stamp "end"

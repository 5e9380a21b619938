# After run34a, warm (export OUT DEADLINE=560): aligned_channels' learning check, the last one
# before it can join the default (YOLOX-s: step 1.016x, end to end +2.0% in the thirty-third
# session). YOLOX-s memorisation (COCO128's train images as both splits, augmentation off, 200
# epochs), with and without it, seeds 0 and 1, four runs side by side (workers=4 each).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 cuda_graph=true"
rm -f /tmp/runs/*.pid
our_train plain_0 model=yoloxs $c seed=0 fused_kernels=measured
our_train aligned_0 model=yoloxs $c seed=0 fused_kernels=measured+aligned_channels
our_train plain_1 model=yoloxs $c seed=1 fused_kernels=measured
our_train aligned_1 model=yoloxs $c seed=1 fused_kernels=measured+aligned_channels
wait_runs
memorisation_report plain_0 aligned_0 plain_1 aligned_1
stamp "end"

# Warm, after run34c (export OUT DEADLINE=560): aligned_channels' learning check again. run34b's
# 200 epochs left YOLOX-s memorisation still on its way off the plateau, at a time that varied from
# run to run (mAP50 0.11-0.67 across the four), so it could not resolve 2%. Here 400 epochs (the
# runs near their ceiling), two new seeds, both settings, four side by side.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 epochs=400 eval_interval=40 no_aug_epochs=400 hsv_prob=0 flip_prob=0 cuda_graph=true"
rm -f /tmp/runs/*.pid
our_train plain_2 model=yoloxs $c seed=2 fused_kernels=measured
our_train aligned_2 model=yoloxs $c seed=2 fused_kernels=measured+aligned_channels
our_train plain_3 model=yoloxs $c seed=3 fused_kernels=measured
our_train aligned_3 model=yoloxs $c seed=3 fused_kernels=measured+aligned_channels
wait_runs
memorisation_report plain_2 aligned_2 plain_3 aligned_3
stamp "end"

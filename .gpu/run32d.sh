# The thirty-second session's fourth call (cold; carry .devkit and .reference; export OUT DEADLINE):
# which kernels run YOLOv9-t's and YOLOX-s's costliest 3x3 convolutions and how far they are from
# the memory floor (tests/tools/conv_kernel_breakdown.py), then YOLOv9-t's memorisation check for
# seed 0 again, side by side: today's default twice and the one before batch_norm_silu_large once
# (run32b's seed-0 run with today's default, alone on an H200, ended at mAP50 0.760; run32c's three
# side-by-side runs on an H100 at 0.850-0.872).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
prepare_data
# The build on the CPU while the probe times kernels on the GPU (kernel times do not depend on the CPU).
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 > $W/build.log 2>&1 &
build=$!
for model in "yolo9 t" "yolox s"; do
  timeout 60 python3 tests/tools/conv_kernel_breakdown.py $model --shapes 6 > "$OUT/kernels_${model/ /}.txt" 2>&1
  stamp "kernels $model rc=$?"; grep -E "^x" "$OUT/kernels_${model/ /}.txt"
done
wait $build; stamp "built rc=$?"; tail -1 $W/build.log
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
OLD=avg_pool_2x2+max_pool_same+weight_casts+task_aligned_metric+task_aligned_selection+simota_cost+simota_selection+weight_grad_stream+block_tails+dense_slices+box_dfl_loss+class_bce+half_upsample
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 cuda_graph=true seed=0"
rm -f /tmp/runs/*.pid
our_train new_0a model=yolo9t $c fused_kernels=measured
our_train new_0b model=yolo9t $c fused_kernels=measured
our_train old_0 model=yolo9t $c fused_kernels=$OLD
wait_runs
memorisation_report new_0a new_0b old_0
stamp "end"

# The twenty-sixth session's last call (cold; carry .devkit and .reference): build, the whole cuda
# ctest at the session's final tree (the new default with box_dfl_loss, class_bce, half_upsample;
# half_upsample's YOLOX-s case in its within-rounding form; native_batch_norm's GPU case; the
# routed convolution backward making a non-dense gradient dense once for both of its halves),
# then, as device time allows: who makes YOLOv9-t's copies now (the head's should be one a layer),
# native_batch_norm in the step (PyTorch's BatchNorm kernels against cuDNN's), and end to end
# beside LibreYOLO twice (its figure moved 44.6-139.4 across calls: how much within one call?).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 60 $H bench step model=yolo9t $common steps=5 warmup=3 op_callers=aten::copy_ > $OUT/copies_yolo9t.txt 2>&1
stamp "copies yolo9t rc=$?"; grep -A8 "who calls" $OUT/copies_yolo9t.txt | cut -c1-220
for model in yolo9t yoloxs; do
  [ $SECONDS -lt 330 ] || break
  timeout 60 $H bench fused model=$model $common steps=30 warmup=10 fused_kernels=measured+native_batch_norm > $W/f.log 2>&1
  stamp "fused native_batch_norm $model rc=$?: $(grep -E 'speedup|composed:|fused:' $W/f.log | cut -c1-300)"
done
for round in 1 2; do
  [ $SECONDS -lt 400 ] || break
  lib_trainbench yolo9t_$round yolo9 t
  timeout 45 $H bench train model=yolo9t $common epochs=3 eval_interval=3 name=e2e_$round > $W/t.log 2>&1
  stamp "ours yolo9t rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-200)"
done
stamp "end"

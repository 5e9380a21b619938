# Eighteenth session, call A (cold): build and the whole cuda ctest (new since the last GPU run:
# the measured list naming linear_assignment and deform_sampling, the fused-choice log helper,
# DenoisingInputs::prepare_batch, and this session's weight copies); then #21's weight_casts
# alone against fused_kernels=off in one process (bench fused: bitwise equality and the step
# speedup) for YOLOv9-t and YOLOX-s; then YOLOv9-t's and YOLOX-s's steps with today's default
# (fused_kernels=measured, without weight_casts) as this call's baseline, and with
# cudnn_benchmark_limit=0 (cuDNN times every convolution algorithm, not PyTorch's top 10).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for m in yolo9t yoloxs; do
  timeout 80 $H bench fused model=$m $common steps=40 warmup=10 fused_kernels=weight_casts json=$OUT/fused_wc_$m.json > $W/f.log 2>&1
  stamp "fused weight_casts $m rc=$?: $(grep -E 'speedup|identical|equal' $W/f.log | head -4 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
done
for m in yolo9t yoloxs; do
  timeout 45 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_measured_$m.json > $W/s.log 2>&1
  stamp "step measured $m rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"; grep -E "fused_kernels" $W/s.log | head -3 >> $OUT/notes.txt
done
for m in yolo9t yoloxs; do
  timeout 90 $H bench step model=$m $common steps=40 warmup=10 cudnn_benchmark_limit=0 json=$OUT/step_limit0_$m.json > $W/s.log 2>&1
  stamp "step measured cudnn_benchmark_limit=0 $m rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"
done
stamp "end"

# Twenty-first session, first call (cold). Needs .devkit and .reference (docs/gpu-machine.md);
# carry both.
# Cold build and the whole cuda ctest: new since the last GPU run is the convolutions' weight
# gradients on a second stream (core/amp/weight_gradient_stream*.cpp, a kernel of ours for
# aten::convolution_backward on CUDA; its GPU test compares YOLOv9-t's gradients with one
# stream's bit for bit, eager and in the whole-step graph). Then the default against the default
# plus it, in one process (bench fused fused_kernels=measured+weight_grad_stream: losses bitwise,
# step time, GPU busy, peak memory), YOLOv9-t then YOLOX-s.
source .gpu/common.sh
stamp "start"
cold_start
grep -E "weight gradient stream|test_weight_gradient" $OUT/ctest.log | head -5
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench fused model=yolo9t $common steps=40 warmup=10 fused_kernels=measured+weight_grad_stream json=$OUT/fused_wgs_yolo9t.json > $W/f.log 2>&1
stamp "fused weight_grad_stream yolo9t rc=$?: $(grep -E 'speedup|identical|equal|second stream' $W/f.log | head -5 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
if [ $SECONDS -lt 500 ]; then
  timeout 90 $H bench fused model=yoloxs $common steps=40 warmup=10 fused_kernels=measured+weight_grad_stream json=$OUT/fused_wgs_yoloxs.json > $W/g.log 2>&1
  stamp "fused weight_grad_stream yoloxs rc=$?: $(grep -E 'speedup|identical|equal|second stream' $W/g.log | head -5 | cut -c1-300)"; cat $W/g.log >> $OUT/fused.log
fi
stamp "end"

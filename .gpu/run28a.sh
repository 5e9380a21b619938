# The twenty-eighth session's first call (cold; carry .devkit and .reference): build and the whole
# cuda ctest at 11235d3 (session 27's CUDA sync-BatchNorm case and NCCL through the new bucket
# packing, never yet run on a GPU), then as device time allows: native_batch_norm in the step
# (PyTorch's BatchNorm kernels against cuDNN's and its memsets), the default YOLOv9-t step at
# batch 8 (#21's fastest/busy <= 1.03x, not measured since the whole-step graph), and end to end
# beside LibreYOLO.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}  # seconds this call may use: each step below runs only if it fits (fits)
stamp "start"
cold_start
common=$YOLO_COMMON
for model in yolo9t yoloxs; do
  fits 60 || break
  bench_fused $OUT/fused_nbn_$model.txt $model native_batch_norm
done
fits 45 && { timeout 45 $H bench step model=yolo9t $common batch=8 steps=100 warmup=20 > $OUT/step8.txt 2>&1
  stamp "step batch 8 rc=$?: $(grep -E 'fastest|busy|host' $OUT/step8.txt | head -6 | tr '\n' ' ' | cut -c1-400)"; }
fits 150 && { lib_trainbench yolo9t yolo9 t
  timeout 45 $H bench train model=yolo9t $common batch=16 epochs=3 eval_interval=3 name=e2e > $W/t.log 2>&1
  stamp "ours yolo9t rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-200)"; }
stamp "end"

# The twenty-ninth session's second call (cold; carry .devkit and .reference): build and the whole
# cuda ctest after the two fixes the first call showed (the CUDA sync-BatchNorm test's deadlock,
# native_batch_norm never leaving cuDNN), then native_batch_norm in the step for both YOLOs (now
# really PyTorch's kernels), and if time allows end to end for YOLOv9-t with and without it.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}  # seconds this call may use: each step below runs only if it fits (fits)
stamp "start"
cold_start
common=$YOLO_COMMON
for model in yolo9t yoloxs; do
  fits 60 || break
  bench_fused $OUT/fused_nbn_$model.txt $model native_batch_norm
done
for fused in measured measured+native_batch_norm; do
  fits 50 || break
  timeout 50 $H bench train model=yolo9t $common batch=16 epochs=3 eval_interval=3 name=e2e_$fused fused_kernels=$fused > $W/t.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-200)"
done
stamp "end"

# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE): the
# whole cuda build and ctest (batch_norm_silu_large's GPU case, built after the thirtieth session's
# last call), batch_norm_silu_check (GPU time per layer for the composed ops, the three-launch and
# the cluster kernels), then bench fused for batch_norm_silu_large (the three-launch BatchNorm +
# SiLU from 2^20 positions up, cuDNN below) on YOLOv9-t and YOLOX-s, and YOLOv9-t end to end with
# it and without.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
fits 60 && { timeout 60 build-gpu/bin/batch_norm_silu_check > $OUT/bn_check.txt 2>&1
  stamp "batch_norm_silu_check rc=$?"; grep -E "^16x|runs" $OUT/bn_check.txt | sed 's/; relative differences.*(ok)/ ok/' | cut -c1-200; }
for model in yolo9t yoloxs; do
  fits 45 || break
  bench_fused $OUT/fused_large_$model.txt $model batch_norm_silu_large
done
n=0
for fused in measured+batch_norm_silu_large measured; do
  n=$((n + 1)); fits 35 || break
  timeout 35 $H bench train model=yolo9t $YOLO_COMMON batch=16 epochs=3 eval_interval=3 name=e2e_$n fused_kernels=$fused > $OUT/e2e_$n.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $OUT/e2e_$n.log | cut -c1-160)"
done
stamp "end"

# The thirtieth session's first call (cold; carry .devkit and .reference; export OUT DEADLINE): the
# whole cuda build and ctest (the one-launch cluster BatchNorm + SiLU's GPU cases, first run, and
# the twenty-ninth session's changes: the epoch clock, back-to-back steps, alternate_step_graphs'
# GPU case), batch_norm_silu_check (composed, three-launch, cluster per layer size), then as the
# DEADLINE allows: bench fused measured+batch_norm_silu_cluster for YOLOv9-t and YOLOX-s, and
# YOLOv9-t end to end with the fixed epoch clock (the default, the candidate).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
cold_start
fits 40 && { timeout 40 $(find build-gpu -name batch_norm_silu_check -type f | head -1) > $OUT/bn_check.txt 2>&1
  stamp "batch_norm_silu_check rc=$?"; cat $OUT/bn_check.txt | cut -c1-220; }
for model in yolo9t yoloxs; do
  fits 60 || break
  bench_fused $OUT/fused_cluster_$model.txt $model batch_norm_silu_cluster
done
n=0
for fused in measured measured+batch_norm_silu_cluster; do
  n=$((n + 1)); fits 40 || break
  timeout 40 $H bench train model=yolo9t $YOLO_COMMON batch=16 epochs=3 eval_interval=3 name=e2e_$n fused_kernels=$fused > $OUT/e2e_$n.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $OUT/e2e_$n.log | cut -c1-160)"
done
stamp "end"

# The thirtieth session's second call (cold; carry .devkit and .reference; export OUT DEADLINE): the
# whole cuda build and ctest again after the cluster kernels' second version (256-thread blocks,
# three a multiprocessor: run30a's first version, one 512-thread block a multiprocessor, ran
# YOLOv9-t's step 0.95x and YOLOX-s's 0.835x), batch_norm_silu_check with each way's GPU time
# alone (calls queued behind a blocker), bench fused for the cluster kernels, and YOLOv9-t end to
# end with the fixed epoch clock: native_batch_norm against the default (943 against 806 images/s
# with the old clock).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
cold_start
fits 60 && { timeout 60 $(find build-gpu -name batch_norm_silu_check -type f | head -1) > $OUT/bn_check.txt 2>&1
  stamp "batch_norm_silu_check rc=$?"; grep -E "^16x|runs" $OUT/bn_check.txt | sed 's/; relative differences.*(ok)/ ok/' | cut -c1-200; }
for model in yolo9t yoloxs; do
  fits 45 || break
  bench_fused $OUT/fused_cluster_$model.txt $model batch_norm_silu_cluster
done
n=0
for fused in measured+native_batch_norm measured; do
  n=$((n + 1)); fits 35 || break
  timeout 35 $H bench train model=yolo9t $YOLO_COMMON batch=16 epochs=3 eval_interval=3 name=e2e_$n fused_kernels=$fused > $OUT/e2e_$n.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $OUT/e2e_$n.log | cut -c1-160)"
done
stamp "end"

# A smaller form of run30b.sh for a short device budget (cold; carry .devkit and .reference; export
# OUT DEADLINE): builds only the host, the YOLO plugins and batch_norm_silu_check (no whole ctest:
# run30a's ran at 55cf939), then the per-layer GPU times, bench fused for the cluster kernels'
# second version and YOLOv9-t end to end (native_batch_norm, the default) with the fixed clock.
source .gpu/common.sh
DEADLINE=${DEADLINE:-400}
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox batch_norm_silu_check > $W/build.log 2>&1; stamp "built rc=$?"
grep -E "error" $W/build.log | head -10
fits 60 && { timeout 60 build-gpu/bin/batch_norm_silu_check > $OUT/bn_check.txt 2>&1
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

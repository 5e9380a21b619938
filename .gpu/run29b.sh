# The twenty-ninth session's third call (cold, little device time; carry .devkit): only the host
# and the YOLOv9 plugin built, then YOLOv9-t end to end three times, native_batch_norm first and
# last, the default between, each run's whole log kept: run29a measured 943 images/s with
# native_batch_norm against 806 without, while its step was only 1.005x faster, so check that.
source .gpu/common.sh
DEADLINE=${DEADLINE:-400}
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 > $W/build.log 2>&1; stamp "built rc=$?"; tail -2 $W/build.log
common=$YOLO_COMMON
n=0
for fused in measured+native_batch_norm measured measured+native_batch_norm; do
  n=$((n + 1)); fits 40 || break
  timeout 40 $H bench train model=yolo9t $common batch=16 epochs=3 eval_interval=3 name=e2e_$n fused_kernels=$fused > $OUT/e2e_$n.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $OUT/e2e_$n.log | cut -c1-200)"
done
stamp "end"

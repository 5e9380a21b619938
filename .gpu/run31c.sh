# The thirty-first session's learning check for batch_norm_silu_large (cold; carry .devkit and
# .reference; export OUT DEADLINE): only the host and the YOLOv9 plugin built, then YOLOv9-t's
# default recipe for 100 epochs on COCO128's 128 train images as both splits, seeds 0 and 1, with
# today's default and with the candidate, four runs at once (workers=4 each), as the
# twenty-ninth session checked native_batch_norm.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
CAND=${CAND:-measured+batch_norm_silu_large}
stamp "start ($CAND)"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 > $W/build.log 2>&1; stamp "built rc=$?"; tail -2 $W/build.log
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 epochs=100 eval_interval=100 cuda_graph=true"
rm -f /tmp/runs/*.pid
for seed in 0 1; do
  our_train default_$seed model=yolo9t $c seed=$seed fused_kernels=measured
  our_train cand_$seed model=yolo9t $c seed=$seed fused_kernels=$CAND
done
while fits 5; do
  n=0; for f in /tmp/runs/*.pid; do alive $f && n=$((n+1)); done
  [ $n -eq 0 ] && break; sleep 1
done
for run in default_0 cand_0 default_1 cand_1; do
  stamp "$run: $(grep -E '^epoch 100/' /tmp/runs/$run.log | cut -c1-200) $(tail -1 /tmp/runs/$run.log | cut -c1-160)"
  cp /tmp/runs/$run.log $OUT/learn_$run.log; cp /tmp/runs/$run/results.csv $OUT/learn_$run.csv 2>/dev/null
done
stamp "end"

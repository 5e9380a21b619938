# A warm call (written in the twenty-fourth session, not yet run): #21's learning checks for the changes that cannot be
# bitwise (box_dfl_loss, class_bce: within float32 rounding). YOLOv9-t, COCO128's 128 train images
# as both splits, seed 0: the default recipe's 100 epochs, two runs with today's default and two
# with the candidates on, four at once (workers=4 each; the sixteenth session's spread of the
# default was 9.250 / 9.324), then memorisation with the candidates (augmentation off, 200 epochs;
# the fifteenth session's default: mAP50 0.819 at epoch 200).
source .gpu/common.sh
CAND=${CAND:-measured+stacked_convolutions+box_dfl_loss+class_bce}
stamp "start ($CAND)"
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 seed=0 epochs=100 eval_interval=100 cuda_graph=true"
rm -f /tmp/runs/*.pid
for run in a b; do
  our_train default_$run model=yolo9t $c fused_kernels=measured
  our_train cand_$run model=yolo9t $c fused_kernels=$CAND
done
for i in $(seq 200); do
  n=0; for f in /tmp/runs/*.pid; do alive $f && n=$((n+1)); done
  [ $n -eq 0 ] && break; sleep 1
done
for run in default_a default_b cand_a cand_b; do
  stamp "$run: $(grep -E '^epoch 100/' /tmp/runs/$run.log | cut -c1-200) $(tail -1 /tmp/runs/$run.log | cut -c1-120)"
  cp /tmp/runs/$run/results.csv $OUT/learn_$run.csv 2>/dev/null; grep -E 'cuda_graph|fused_kernels|fused kernels' /tmp/runs/$run.log | head -4 >> $OUT/learn_notes.txt
done
m="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 seed=0 cuda_graph=true project=/tmp/runs"
[ $SECONDS -lt 420 ] && timeout 150 $H train model=yolo9t $m epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 fused_kernels=$CAND name=memorise_cand > $W/m.log 2>&1
stamp "memorisation (candidates) rc=$?: $(grep -E 'mAP50' $W/m.log | tail -2 | tr '\n' ' ' | cut -c1-300)"
cp /tmp/runs/memorise_cand/results.csv $OUT/memorise_cand_results.csv 2>/dev/null
stamp "end"

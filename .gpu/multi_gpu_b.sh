# Issue #22's second call (warm, right after multi_gpu_a.sh): scaling efficiency at batch 64 per GPU
# (bench train, 1 GPU then all GPUs of the machine; YOLOv9-s and YOLOX-s), sync_bn's cost (2 GPUs
# on and off), the all-reduce's overlap with backward (rank 0's profile, twenty-seventh session), a killed rank (SIGKILL to rank 1: the launcher should end the run within 60 s naming
# it) and a stopped one (SIGSTOP with ddp_timeout=30: a message, not a hang). Written in the
# twenty-sixth session, not yet run.
source .gpu/common.sh
stamp "start"
N=$(nvidia-smi -L | wc -l); ALL=$(seq -s, 0 $((N - 1)))
c="data=$W/coco128x8/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs val=false"
for model in yolo9s yoloxs; do
  [ $SECONDS -lt 330 ] || break
  timeout 90 $H bench train model=$model $c epochs=3 device=0 batch=64 name=one_$model > $W/b1.log 2>&1
  one=$(grep -oE '^bench train: [^ ]+ [0-9.]+' $W/b1.log | awk '{print $4}')
  timeout 120 $H bench train model=$model $c epochs=3 device=$ALL batch=$((64 * N)) name=all_$model > $W/bn.log 2>&1
  all=$(grep -oE '^bench train: [^ ]+ [0-9.]+' $W/bn.log | awk '{print $4}')
  stamp "$model: 1 GPU $one, $N GPUs $all images/s: efficiency $(python3 -c "print(round($all / ($N * $one), 3))" 2>/dev/null)"
  cat $W/b1.log $W/bn.log >> $OUT/scaling.log
done
for sync in true false; do
  [ $SECONDS -lt 420 ] || break
  timeout 90 $H bench train model=yolo9s $c epochs=3 device=0,1 batch=128 sync_bn=$sync name=sync_$sync > $W/s.log 2>&1
  stamp "sync_bn=$sync: $(grep -E '^bench train:' $W/s.log | cut -c1-120)"
done
# The gradient all-reduce beside backward: rank 0's profile (sync_bn off, so that its NCCL line
# holds the gradient buckets alone) says how much of the NCCL time ran beside other kernels.
if [ $SECONDS -lt 440 ]; then
  timeout 100 $H train model=yolo9s $c device=0,1 batch=128 epochs=3 sync_bn=false profile=true profile_skip=4 \
    profile_steps=8 name=overlap > $OUT/overlap.log 2>&1
  stamp "overlap: $(grep -E 'NCCL  |GPU busy' $OUT/overlap.log | tr '\n' ' ' | cut -c1-300)"
fi
# A killed rank: the process whose environment says RANK=1, SIGKILL 40 s in; the launcher's exit and message.
(timeout 150 $H train model=yolo9s $c device=0,1 batch=128 epochs=20 name=killed > $OUT/killed.log 2>&1; echo "rc=$?" >> $OUT/killed.log) &
sleep 40; victim=""
for p in $(pgrep -f "name=killed"); do tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx RANK=1 && victim=$p; done
t0=$SECONDS
kill -9 $victim; wait; stamp "killed pid $victim: launcher ended $((SECONDS - t0)) s later: $(tail -4 $OUT/killed.log | tr '\n' ' ' | cut -c1-300)"
# A stopped rank (alive, connections open): NCCL's watchdog or ddp_timeout=30 should end the run
# with a message naming ddp_timeout, not hang; the launcher's exit and its last lines.
(timeout 150 $H train model=yolo9s $c device=0,1 batch=128 epochs=20 ddp_timeout=30 name=stopped > $OUT/stopped.log 2>&1
 echo "rc=$?" >> $OUT/stopped.log) &
sleep 40; victim=""
for p in $(pgrep -f "name=stopped"); do tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx RANK=1 && victim=$p; done
t0=$SECONDS; kill -STOP $victim; wait
stamp "stopped pid $victim: launcher ended $((SECONDS - t0)) s later: $(tail -4 $OUT/stopped.log | tr '\n' ' ' | cut -c1-300)"
kill -9 $victim 2>/dev/null
stamp "end"

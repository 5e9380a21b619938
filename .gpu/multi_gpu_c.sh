# Issue #22's third call (warm, after multi_gpu_b.sh; export OUT DEADLINE=565): scaling efficiency at
# batch 64 per GPU (bench train, 1 GPU then all GPUs of the machine; YOLOv9-s and YOLOX-s), the
# all-reduce's overlap with backward (rank 0's profile, twenty-seventh session), a killed rank
# (SIGKILL to rank 1: the launcher should end the run within 60 s naming it) and a stopped one
# (SIGSTOP with ddp_timeout=30: a message, not a hang). Written in the twenty-sixth session as
# multi_gpu_b.sh, not yet run.
source .gpu/common.sh
DEADLINE=${DEADLINE:-565}
stamp "start"
[ -f $W/coco128x8/data.yaml ] || prepare_data
[ -x $H ] || { scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"; }
N=$(nvidia-smi -L | wc -l); ALL=$(seq -s, 0 $((N - 1)))
c="data=$W/coco128x8/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs val=false"
for model in yolo9s yoloxs; do
  fits 150 || break
  timeout 90 $H bench train model=$model $c epochs=3 device=0 batch=64 name=one_$model > $W/b1.log 2>&1
  one=$(grep -oE '^bench train: [^ ]+ [0-9.]+' $W/b1.log | awk '{print $4}')
  timeout 120 $H bench train model=$model $c epochs=3 device=$ALL batch=$((64 * N)) name=all_$model > $W/bn.log 2>&1
  all=$(grep -oE '^bench train: [^ ]+ [0-9.]+' $W/bn.log | awk '{print $4}')
  stamp "$model: 1 GPU $one, $N GPUs $all images/s: efficiency $(python3 -c "print(round($all / ($N * $one), 3))" 2>/dev/null)"
  cat $W/b1.log $W/bn.log >> $OUT/scaling.log
done
# The gradient all-reduce beside backward: rank 0's profile (sync_bn off, so that its NCCL line
# holds the gradient buckets alone) says how much of the NCCL time ran beside other kernels.
if fits 100; then
  timeout 100 $H train model=yolo9s $c device=0,1 batch=128 epochs=3 sync_bn=false profile=true profile_skip=4 \
    profile_steps=8 name=overlap > $OUT/overlap.log 2>&1
  stamp "overlap: $(grep -E 'NCCL  |GPU busy' $OUT/overlap.log | tr '\n' ' ' | cut -c1-300)"
fi
# A killed rank: the process whose environment says RANK=1, SIGKILL 40 s in; the launcher's exit and message.
fits 110 || { stamp "no time left for the killed and stopped ranks"; exit 0; }
(timeout 150 $H train model=yolo9s $c device=0,1 batch=128 epochs=20 name=killed > $OUT/killed.log 2>&1; echo "rc=$?" >> $OUT/killed.log) &
sleep 40; victim=""
for p in $(pgrep -f "name=killed"); do tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx RANK=1 && victim=$p; done
t0=$SECONDS
kill -9 $victim; wait; stamp "killed pid $victim: launcher ended $((SECONDS - t0)) s later: $(tail -4 $OUT/killed.log | tr '\n' ' ' | cut -c1-300)"
# A stopped rank (alive, connections open): NCCL's watchdog or ddp_timeout=30 should end the run
# with a message naming ddp_timeout, not hang; the launcher's exit and its last lines.
fits 110 || { stamp "no time left for the stopped rank"; exit 0; }
(timeout 150 $H train model=yolo9s $c device=0,1 batch=128 epochs=20 ddp_timeout=30 name=stopped > $OUT/stopped.log 2>&1
 echo "rc=$?" >> $OUT/stopped.log) &
sleep 40; victim=""
for p in $(pgrep -f "name=stopped"); do tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx RANK=1 && victim=$p; done
t0=$SECONDS; kill -STOP $victim; wait
stamp "stopped pid $victim: launcher ended $((SECONDS - t0)) s later: $(tail -4 $OUT/stopped.log | tr '\n' ' ' | cut -c1-300)"
kill -9 $victim 2>/dev/null
stamp "end"

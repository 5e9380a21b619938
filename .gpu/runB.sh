# Call B: bench capture rtdetrr18 (its gradient check); progress of the four detached runs.
source .gpu/common.sh
stamp "start B: lib rtdetr=$(alive /tmp/lib/rtdetr.pid && echo y) dfine=$(alive /tmp/lib/dfine.pid && echo y) ours rtdetr=$(alive /tmp/runs/rtdetr_default.pid && echo y) dfine=$(alive /tmp/runs/dfine_default.pid && echo y)"
timeout 200 $H bench capture model=rtdetrr18 data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=8 cache=ram device=0 steps=12 warmup=3 project=/tmp/runs > $OUT/capture_rtdetr.log 2>&1; echo "rc=$?" >> $OUT/capture_rtdetr.log
stamp "capture done"
while [ $SECONDS -lt ${END:-480} ]; do sleep 10; done
for n in rtdetr dfine; do echo "== $n"; grep '^{"epoch"' /tmp/lib/$n.log | cut -c1-160 | tail -3; tail -c 1500 /tmp/lib/$n.log; done > $OUT/lib_tails.txt
for n in rtdetr_default dfine_default; do echo "== $n"; tail -c 2500 /tmp/runs/$n.log; done > $OUT/our_tails.txt
ls /tmp/runs/*/ /tmp/lib/*/runs/*/weights 2>&1 | head -40 >> $OUT/our_tails.txt
stamp "end B: lib rtdetr=$(alive /tmp/lib/rtdetr.pid && echo y) dfine=$(alive /tmp/lib/dfine.pid && echo y) ours rtdetr=$(alive /tmp/runs/rtdetr_default.pid && echo y) dfine=$(alive /tmp/runs/dfine_default.pid && echo y)"

# Call A: LibreYOLO's two default-recipe runs start at once (detached); build; whole ctest;
# bench capture rtdetrr18; then our two default-recipe runs (detached).
source .gpu/common.sh
self_yaml
stamp "start $(nvidia-smi --query-gpu=name,memory.used --format=csv,noheader)"
lib_train rtdetr rtdetr r18 batch=4 epochs=100 workers=4 save_period=5
lib_train dfine dfine n epochs=100 workers=4 save_period=5
stamp "libreyolo started"
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
tail -5 $W/build.log; cp $W/build.log $OUT/build.log
stamp "built"
(cd build-gpu && ctest -j8 --timeout 180 --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$?" >> $W/ctest.log)
tail -25 $W/ctest.log; cp $W/ctest.log $OUT/ctest.log
stamp "ctest done"
bash scripts/make-repeated-dataset.sh $R/coco128 $W/coco128x8 8 > /dev/null
our_train rtdetr_default model=rtdetrr18 data=$W/coco128_self.yaml epochs=100 batch=4 imgsz=640 device=0 seed=0 workers=4 eval_interval=25
our_train dfine_default model=dfinen data=$W/coco128_self.yaml epochs=100 batch=16 imgsz=640 device=0 seed=0 workers=4 eval_interval=25
stamp "ours started"
timeout 150 $H bench capture model=rtdetrr18 data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=8 cache=ram device=0 steps=12 warmup=3 project=/tmp/runs > $OUT/capture_rtdetr.log 2>&1; echo "rc=$?" >> $OUT/capture_rtdetr.log
stamp "capture done"
while [ $SECONDS -lt 540 ]; do sleep 10; done
for n in rtdetr dfine; do grep '^{"epoch"' /tmp/lib/$n.log | tail -2; echo "== $n"; tail -c 3000 /tmp/lib/$n.log; done > $OUT/lib_tails.txt
for n in rtdetr_default dfine_default; do echo "== $n"; tail -c 3000 /tmp/runs/$n.log; done > $OUT/our_tails.txt
stamp "end: lib alive rtdetr=$(alive /tmp/lib/rtdetr.pid && echo y) dfine=$(alive /tmp/lib/dfine.pid && echo y)"

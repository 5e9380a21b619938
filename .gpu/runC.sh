# Call C: our two default-recipe runs (data copied to /tmp: a new call re-copies the carried tree).
source .gpu/common.sh
cp -r $R/coco128 $W/coco128
sed -i "s#^path: .*#path: $W/coco128#" $W/coco128_self.yaml 2>/dev/null || true
R=$W self_yaml
stamp "start C"
our_train rtdetr_d model=rtdetrr18 data=$W/coco128_self.yaml epochs=100 batch=4 imgsz=640 device=0 seed=0 workers=6 eval_interval=50
our_train dfine_d model=dfinen data=$W/coco128_self.yaml epochs=100 batch=16 imgsz=640 device=0 seed=0 workers=6 eval_interval=50
while [ $SECONDS -lt ${END:-540} ] && { alive /tmp/runs/rtdetr_d.pid || alive /tmp/runs/dfine_d.pid; }; do sleep 5; done
stamp "runs: rtdetr alive=$(alive /tmp/runs/rtdetr_d.pid && echo y) dfine alive=$(alive /tmp/runs/dfine_d.pid && echo y)"
for n in rtdetr_d dfine_d; do cp /tmp/runs/$n/results.csv $OUT/$n.results.csv; echo "== $n"; grep -v "^warning" /tmp/runs/$n.log | tail -c 2500; done > $OUT/our_tails.txt
for n in rtdetr dfine; do cp /tmp/lib/$n/reference_train.json $OUT/lib_$n.json; done
stamp "end C"

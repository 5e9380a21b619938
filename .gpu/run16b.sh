# The sixteenth session's second call: cold build (no ctest: the last call runs it on the final
# tree); YOLOv9-t fused vs composed in one process with the average pool's backward rounding as
# PyTorch's (expect 50 of 50 losses equal now); RT-DETR-r18's step with the census's host time per
# operator kind; issue #21's run-to-run spread of the 100-epoch default recipe (two runs with the
# defaults, two eager with fused_kernels=off, all seed 0, four at once); then end to end beside
# LibreYOLO: RT-DETR-r18 (its step looked slower than the twelfth session's), YOLOX-s.
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -1 $W/build.log; grep -E "error" $W/build.log | head -20
stamp "built"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 60 $H bench fused model=yolo9t $common steps=40 warmup=10 json=$OUT/fused_yolo9t.json > $W/f.log 2>&1
stamp "fused yolo9t rc=$?: $(grep -E 'speedup' $W/f.log | cut -c1-300)"
timeout 45 $H bench step model=rtdetrr18 $common steps=30 warmup=10 json=$OUT/step_rtdetrr18.json > $W/s.log 2>&1
stamp "step rtdetrr18: $(grep 'bench step:' $W/s.log | cut -c1-300)"
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 seed=0 epochs=100 eval_interval=100"
for run in a b; do
  our_train default_$run model=yolo9t $c cuda_graph=true
  our_train eager_off_$run model=yolo9t $c cuda_graph=false fused_kernels=off
done
for i in $(seq 170); do
  n=0; for f in /tmp/runs/*.pid; do alive $f && n=$((n+1)); done
  [ $n -eq 0 ] && break; sleep 1
done
for run in default_a default_b eager_off_a eager_off_b; do
  stamp "$run: $(grep -E '^epoch 100/' /tmp/runs/$run.log | cut -c1-200) $(tail -1 /tmp/runs/$run.log | cut -c1-120)"
  cp /tmp/runs/$run/results.csv $OUT/learn_$run.csv 2>/dev/null; grep -E 'cuda_graph|fused_kernels' /tmp/runs/$run.log | head -4 >> $OUT/learn_notes.txt
done
for m in "rtdetr r18 rtdetrr18 75 45" "yolox s yoloxs 60 40"; do
  set -- $m; [ $SECONDS -lt 460 ] || break
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout $4 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_$3 $1:$2:16 > $W/lib_$3.log 2>&1)
  stamp "LibreYOLO $3: $(tail -1 $W/lib_$3.log | cut -c1-300)"; cat $W/lib_$3.log >> $OUT/reference.log
  timeout $5 $H bench train model=$3 $common epochs=3 eval_interval=3 name=e2e_$3 > $W/t.log 2>&1
  stamp "ours $3 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
stamp "end"

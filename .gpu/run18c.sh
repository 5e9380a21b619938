# Eighteenth session, call B (warm, right after run18b): the default list with weight_casts added
# (patched here on the device's copy only, then an incremental build), YOLOv9-t's and YOLOX-s's
# steps with it, and end to end beside LibreYOLO's trainer in this call (YOLOv9-t, then YOLOX-s;
# ours also with cudnn_benchmark_limit=0 where time is left).
# Whether the default changes in the repository is decided from run18b's equality and these.
source .gpu/common.sh
stamp "start"
sed -i 's/"linear_assignment",\s*$/"linear_assignment", "weight_casts",/' sdk/include/libreyolo/sdk/fused_kernels.hpp
grep -n -A1 "kMeasuredFasterKernels\[\]" sdk/include/libreyolo/sdk/fused_kernels.hpp >> $OUT/notes.txt
scripts/gpu-build.sh > $W/build2.log 2>&1; stamp "rebuilt rc=$?"; tail -2 $W/build2.log
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for m in yolo9t yoloxs; do
  timeout 45 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_new_$m.json > $W/s.log 2>&1
  stamp "step measured+weight_casts $m rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"; grep -E "fused_kernels" $W/s.log | head -3 >> $OUT/notes.txt
done
for m in "yolo9 t yolo9t" "yolox s yoloxs"; do
  set -- $m; [ $SECONDS -lt 400 ] || break
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_$3 $1:$2:16 > $W/lib_$3.log 2>&1)
  stamp "LibreYOLO $3: $(tail -1 $W/lib_$3.log | cut -c1-300)"; cat $W/lib_$3.log >> $OUT/reference.log
  timeout 45 $H bench train model=$3 $common epochs=3 eval_interval=3 name=e2e_$3 > $W/t.log 2>&1
  stamp "ours $3 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
if [ $SECONDS -lt 500 ]; then
  timeout 60 $H bench train model=yolo9t $common epochs=3 eval_interval=3 name=e2e_l0 cudnn_benchmark_limit=0 > $W/t.log 2>&1
  stamp "ours yolo9t cudnn_benchmark_limit=0 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
fi
stamp "end"

# Planned for the sixteenth session's first call (written in the fifteenth, not run yet): cold
# build; the whole cuda ctest (new since the last GPU run: BatchNorm counters in one add, sdk::Linear
# in the DETRs, the op census, bench fused, the plugins' shared precompiled header); issue #21's
# fused-vs-composed check in one process (bench fused, 50 steps, YOLOv9-t and YOLOX-s); the steps
# (kernels/step should drop by the BatchNorm layers' count: YOLOv9-t ~221, YOLOX-s ~74); the DETRs'
# steps with the op census (sdk::Linear: fewer operators and kernels); end to end beside LibreYOLO
# (YOLOv9-t, then YOLOX-s, then RT-DETR-r18 if time is left). Carry .devkit and .reference.
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for m in yolo9t yoloxs; do
  timeout 60 $H bench fused model=$m $common steps=40 warmup=10 json=$W/fused_$m.json > $W/f.log 2>&1
  stamp "fused $m rc=$?: $(grep -E 'speedup' $W/f.log | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
done
# The deformable sampling kernel's pair in one process (its two-process pairs disagreed, 12th session).
timeout 90 $H bench fused model=dfinen $common steps=20 warmup=5 fused_kernels=deform_sampling > $W/f.log 2>&1
stamp "fused dfinen deform_sampling rc=$?: $(grep -E 'speedup' $W/f.log | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
for m in yolo9t yoloxs rtdetrr18 dfinen; do
  timeout 40 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_$m.json > $W/s.log 2>&1
  stamp "step $m: $(grep 'bench step:' $W/s.log | cut -c1-420)"
done
for m in "yolo9 t yolo9t" "yolox s yoloxs" "rtdetr r18 rtdetrr18"; do
  set -- $m; [ $SECONDS -lt 470 ] || break
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_$3 $1:$2:16 > $W/lib_$3.log 2>&1)
  stamp "LibreYOLO $3: $(tail -1 $W/lib_$3.log | cut -c1-300)"; cat $W/lib_$3.log >> $OUT/reference.log
  timeout 45 $H bench train model=$3 $common epochs=3 eval_interval=3 name=e2e_$3 > $W/t.log 2>&1
  stamp "ours $3 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
stamp "end"

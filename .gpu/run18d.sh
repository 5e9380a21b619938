# Eighteenth session, call C (cold): build and the whole cuda ctest (new since call A: the fused
# BatchNorm + SiLU as one cooperative launch a direction, its passes moved to
# batch_norm_silu_passes.cuh; weight_casts in the default list); the fused BatchNorm + SiLU
# against the composed ops per call (batch_norm_silu_check) and in the step, one process (bench
# fused fused_kernels=batch_norm_silu, YOLOv9-t and YOLOX-s); the steps with every kernel (auto)
# and with the default; then YOLOX-s end to end beside LibreYOLO (call B's pair lost its
# LibreYOLO side to a folder the YOLOv9-t run left; cleared here).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 60 build-gpu/bin/batch_norm_silu_check > $OUT/bn_check.log 2>&1; stamp "bn check rc=$?"; cat $OUT/bn_check.log | cut -c1-260
for m in yolo9t yoloxs; do
  timeout 80 $H bench fused model=$m $common steps=40 warmup=10 fused_kernels=batch_norm_silu json=$OUT/fused_bn_$m.json > $W/f.log 2>&1
  stamp "fused batch_norm_silu $m rc=$?: $(grep -E 'speedup' $W/f.log | head -2 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
  grep -E "cuda_graph|fell back|fused_kernels" $W/f.log | head -6 >> $OUT/notes.txt
done
for m in yolo9t yoloxs; do
  for fk in auto measured; do
    timeout 45 $H bench step model=$m $common steps=40 warmup=10 fused_kernels=$fk json=$OUT/step_${fk}_$m.json > $W/s.log 2>&1
    stamp "step $fk $m rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-330)"
  done
done
rm -rf /tmp/anchor_ds
(cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_yoloxs yolox:s:16 > $W/lib_yoloxs.log 2>&1)
stamp "LibreYOLO yoloxs: $(tail -1 $W/lib_yoloxs.log | cut -c1-300)"; cat $W/lib_yoloxs.log >> $OUT/reference.log
timeout 45 $H bench train model=yoloxs $common epochs=3 eval_interval=3 name=e2e_yoloxs > $W/t.log 2>&1
stamp "ours yoloxs rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
stamp "end"

# Eighteenth session, call D (warm, right after run18d, only if the one-launch BatchNorm + SiLU
# was faster in the step there): batch_norm_silu added to the default list on the device's copy
# (incremental build), the steps with it, and YOLOv9-t end to end beside LibreYOLO in this call.
source .gpu/common.sh
stamp "start"
sed -i 's/"deform_sampling", "weight_casts"}/"deform_sampling", "weight_casts", "batch_norm_silu"}/' sdk/include/libreyolo/sdk/fused_kernels.hpp
grep -n -A1 "kMeasuredFasterKernels\[\]" sdk/include/libreyolo/sdk/fused_kernels.hpp >> $OUT/notes.txt
scripts/gpu-build.sh > $W/build2.log 2>&1; stamp "rebuilt rc=$?"; tail -2 $W/build2.log
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for m in yolo9t yoloxs; do
  timeout 45 $H bench step model=$m $common steps=40 warmup=10 json=$OUT/step_new_$m.json > $W/s.log 2>&1
  stamp "step new default $m rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-330)"
done
rm -rf /tmp/anchor_ds
(cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_yolo9t yolo9:t:16 > $W/lib_yolo9t.log 2>&1)
stamp "LibreYOLO yolo9t: $(tail -1 $W/lib_yolo9t.log | cut -c1-300)"; cat $W/lib_yolo9t.log >> $OUT/reference.log
timeout 45 $H bench train model=yolo9t $common epochs=3 eval_interval=3 name=e2e_yolo9t > $W/t.log 2>&1
stamp "ours yolo9t rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
stamp "end"

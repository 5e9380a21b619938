# Nineteenth session, fifth call (warm, right after run19e): task_aligned_metric added to the
# default list (kMeasuredFasterKernels) on the device's copy only, an incremental build, YOLOv9-t's
# default step beside run19d's (23.96 ms median, GPU busy 22.12 ms), then YOLOv9-t end to end
# beside LibreYOLO's trainer in this call. Whether the default changes in the repository is
# decided from run19e's equality and these.
source .gpu/common.sh
stamp "start"
sed -i 's|"deform_sampling", "weight_casts"};|"deform_sampling", "weight_casts", "task_aligned_metric"};|' sdk/include/libreyolo/sdk/fused_kernels.hpp
grep -n "kMeasuredFasterKernels\[\]" -A1 sdk/include/libreyolo/sdk/fused_kernels.hpp >> $OUT/notes.txt
scripts/gpu-build.sh > $W/build2.log 2>&1; stamp "rebuilt rc=$?"; tail -2 $W/build2.log
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 45 $H bench step model=yolo9t $common steps=40 warmup=10 json=$OUT/step_default_tam_yolo9t.json > $W/s.log 2>&1
stamp "step yolo9t measured+task_aligned_metric rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"; grep -E "fused_kernels" $W/s.log | head -4 >> $OUT/notes.txt
if [ $SECONDS -lt 200 ]; then
  rm -rf /tmp/anchor_ds
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_yolo9t yolo9:t:16 > $W/lib_yolo9t.log 2>&1)
  stamp "LibreYOLO yolo9t: $(tail -1 $W/lib_yolo9t.log | cut -c1-300)"; cat $W/lib_yolo9t.log >> $OUT/reference.log
  timeout 45 $H bench train model=yolo9t $common epochs=3 eval_interval=3 name=e2e_yolo9t > $W/t.log 2>&1
  stamp "ours yolo9t rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
fi
stamp "end"

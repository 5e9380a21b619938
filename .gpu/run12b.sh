# Call B (12th session): LibreYOLO writes a yolo9-t checkpoint (detached, during the build);
# build; the unit binary's fused and capture cases; bench step fused_kernels=off|auto for D-FINE-n
# (float32) and RT-DETR-r18 (AMP); #19: fine-tune from that checkpoint found by name in the cache.
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
mkdir -p /tmp/lib/y9
setsid nohup python3 tests/python/libreyolo_reference_train.py /tmp/lib/y9 yolo9 t $W/coco128 epochs=1 workers=8 > /tmp/lib/y9.log 2>&1 < /dev/null &
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -3 $W/build.log
stamp "built"
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc='*fused*,*deformable*,CUDA graph*,ModelEma*' > $OUT/unit_fixed.log 2>&1; echo "rc=$?" >> $OUT/unit_fixed.log
tail -5 $OUT/unit_fixed.log
stamp "unit done"
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs"
for fk in off auto; do
  timeout 60 $H bench step model=dfinen $common multi_scale=false cuda_graph=true steps=20 fused_kernels=$fk > $OUT/step_dfinen_$fk.log 2>&1; echo "rc=$?" >> $OUT/step_dfinen_$fk.log
  stamp "step dfinen $fk"
  timeout 60 $H bench step model=rtdetrr18 $common cuda_graph=true steps=20 fused_kernels=$fk > $OUT/step_rtdetr_$fk.log 2>&1; echo "rc=$?" >> $OUT/step_rtdetr_$fk.log
  stamp "step rtdetr $fk"
done
while kill -0 $(pgrep -f "libreyolo_reference_train.py /tmp/lib/y9" | head -1) 2>/dev/null && [ $SECONDS -lt 500 ]; do sleep 2; done
cp /tmp/lib/y9.log $OUT/lib_y9.log
pt=$(find /tmp/lib/y9 -name 'last.pt' | head -1); [ -n "$pt" ] || pt=$(find /tmp/lib/y9 -name '*.pt' | head -1)
stamp "lib y9 pt: $pt"; find /tmp/lib/y9 -name '*.pt' -exec ls -la {} + >> $OUT/lib_y9.log 2>&1
mkdir -p ~/.cache/libreyolo && cp "$pt" ~/.cache/libreyolo/LibreYOLO9t.pt
(cd $W && timeout $((590-SECONDS)) $H train model=LibreYOLO9t.pt data=$W/coco128/data.yaml imgsz=640 batch=16 epochs=3 device=0 workers=8 project=/tmp/runs name=finetune > $OUT/finetune.log 2>&1; echo "rc=$?" >> $OUT/finetune.log)
cp /tmp/runs/finetune/results.csv /tmp/runs/finetune/args.yaml /tmp/runs/finetune/train.log $OUT/ 2>/dev/null
ls /tmp/runs/finetune > $OUT/finetune_files.txt 2>&1
stamp "end"

# Call C (12th session, warm after B): end to end beside LibreYOLO, D-FINE-n float32 and
# RT-DETR-r18 AMP, ours with fused_kernels=auto and off; then the whole ctest.
source .gpu/common.sh
stamp "start"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128; bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
scripts/gpu-build.sh > $W/build.log 2>&1; tail -2 $W/build.log
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs"
(cd $W && COCO128=$W/coco128 AMP=0 EPOCHS=2 WORKERS=16 timeout 110 python3 $R/libreyolo_trainbench.py $OUT/lib_dfine dfine:n:16 > $OUT/lib_dfine.log 2>&1; echo "rc=$?" >> $OUT/lib_dfine.log)
stamp "lib dfine"
for fk in auto off; do
  timeout 70 $H bench train model=dfinen $common cuda_graph=true epochs=2 eval_interval=2 fused_kernels=$fk name=e2e_dfine_$fk > $OUT/e2e_dfine_$fk.log 2>&1; echo "rc=$?" >> $OUT/e2e_dfine_$fk.log
  stamp "e2e dfine $fk"
done
(cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 90 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $OUT/lib_rtdetr rtdetr:r18:16 > $OUT/lib_rtdetr.log 2>&1; echo "rc=$?" >> $OUT/lib_rtdetr.log)
stamp "lib rtdetr"
for fk in auto off; do
  timeout 50 $H bench train model=rtdetrr18 $common cuda_graph=true epochs=3 eval_interval=3 fused_kernels=$fk name=e2e_rtdetr_$fk > $OUT/e2e_rtdetr_$fk.log 2>&1; echo "rc=$?" >> $OUT/e2e_rtdetr_$fk.log
  stamp "e2e rtdetr $fk"
done
(cd build-gpu && timeout $((590-SECONDS)) ctest -j8 --timeout 120 --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$?" >> $W/ctest.log)
tail -15 $W/ctest.log; cp $W/ctest.log $OUT/ctest.log
stamp "end"

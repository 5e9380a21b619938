# Twenty-first session, first call (cold). Needs .devkit and .reference (docs/gpu-machine.md);
# carry both.
# Cold build and the whole cuda ctest: new since the last GPU run is the convolutions' weight
# gradients on a second stream (core/amp/weight_gradient_stream*.cpp, a kernel of ours for
# aten::convolution_backward on CUDA; its GPU test compares YOLOv9-t's gradients with one
# stream's bit for bit, eager and in the whole-step graph). Then the default against the default
# plus it, in one process (bench fused fused_kernels=measured+weight_grad_stream: losses bitwise,
# step time, GPU busy, peak memory), YOLOv9-t then YOLOX-s.
# If the build fails (the routed kernel follows LibTorch's operator signature, checked here for the
# first time), the build is redone with LIBREYOLO_WEIGHT_GRAD_STREAM=OFF so that the whole ctest
# still runs (its second-stream GPU case then fails, saying why) and the errors are kept.
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
if ! scripts/gpu-build.sh > $W/build.log 2>&1; then
  grep -E "error" $W/build.log | head -30 | tee $OUT/build_errors.txt
  stamp "build failed: again with LIBREYOLO_WEIGHT_GRAD_STREAM=OFF"
  cmake -S . -B build-gpu -DLIBREYOLO_WEIGHT_GRAD_STREAM=OFF > /dev/null
  scripts/gpu-build.sh >> $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
fi
tail -1 $W/build.log
stamp "built"
(cd build-gpu && timeout 170 ctest -j8 --timeout 160 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|ERROR|values:" $OUT/ctest.log | head -20
stamp "ctest done"
grep -E "weight gradient stream|test_weight_gradient" $OUT/ctest.log | head -5
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench fused model=yolo9t $common steps=40 warmup=10 fused_kernels=measured+weight_grad_stream json=$OUT/fused_wgs_yolo9t.json > $W/f.log 2>&1
stamp "fused weight_grad_stream yolo9t rc=$?: $(grep -E 'speedup|identical|equal|second stream' $W/f.log | head -5 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
if [ $SECONDS -lt 500 ]; then
  timeout 90 $H bench fused model=yoloxs $common steps=40 warmup=10 fused_kernels=measured+weight_grad_stream json=$OUT/fused_wgs_yoloxs.json > $W/g.log 2>&1
  stamp "fused weight_grad_stream yoloxs rc=$?: $(grep -E 'speedup|identical|equal|second stream' $W/g.log | head -5 | cut -c1-300)"; cat $W/g.log >> $OUT/fused.log
fi
stamp "end"

# Twenty-third session's first call (cold): .gpu/run22a.sh plus the block tails and the fused box losses (block_tails, box_dfl_loss, class_bce). Needs .devkit and .reference (docs/gpu-machine.md);
# carry both.
# While the build runs (the GPU idle): the Python probe of the branches on side streams, on
# LibreYOLO's own YOLOv9-t and YOLOX-s (tests/tools/branch_streams_experiment.py: the training pass
# captured in a CUDA graph, replay time with and without, gradients bitwise).
# Then the whole cuda ctest: new since the last GPU run are the convolutions' weight gradients on a
# second stream (core/amp/weight_gradient_stream*.cpp, a kernel of ours for
# aten::convolution_backward on CUDA) and the branches on side streams (sdk/side_by_side.hpp); their
# GPU tests compare YOLOv9-t's (and YOLOX-s's) gradients with one stream's bit for bit, eager and in
# the whole-step graph. Then the default against the default plus each, in one process per pair
# (bench fused fused_kernels=measured+NAME: losses bitwise, step time, GPU busy, peak memory),
# YOLOv9-t. .gpu/run22c.sh (warm) does the rest.
# If the build fails (the routed kernel follows LibTorch's operator signature; both CUDA parts are
# compiled here for the first time), the build is redone with LIBREYOLO_WEIGHT_GRAD_STREAM=OFF and
# LIBREYOLO_SIDE_STREAMS=OFF so that the whole ctest still runs (their GPU cases then fail, saying
# why) and the errors are kept.
source .gpu/common.sh
stamp "start"
(for model in "yolo9 t" "yolox s"; do
   timeout 150 python3 tests/tools/branch_streams_experiment.py $model > $OUT/branch_${model/ /}.txt 2>&1
 done) &
probe=$!
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
if ! scripts/gpu-build.sh > $W/build.log 2>&1; then
  grep -E "error" $W/build.log | head -30 | tee $OUT/build_errors.txt
  stamp "build failed: again with LIBREYOLO_WEIGHT_GRAD_STREAM=OFF LIBREYOLO_SIDE_STREAMS=OFF"
  cmake -S . -B build-gpu -DLIBREYOLO_WEIGHT_GRAD_STREAM=OFF -DLIBREYOLO_SIDE_STREAMS=OFF > /dev/null
  scripts/gpu-build.sh >> $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
fi
tail -1 $W/build.log
stamp "built"
wait $probe
stamp "probe done: $(grep -hE 'original|blocks|head' $OUT/branch_*.txt | cut -c1-120 | tr '\n' ';')"
# The never-run GPU cases alone first (short limit): if one crashed or hung the unit binary, this
# log still names it.
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc="*side_by_side*,*ForkPoint*,*side stream choice*,*weight gradient stream*,*block tails*,*box_dfl_loss*,*class_bce*" \
  > $OUT/new_gpu_cases.log 2>&1; stamp "new GPU cases rc=$?: $(tail -3 $OUT/new_gpu_cases.log | tr '\n' ' ')"
(cd build-gpu && timeout 150 ctest -j8 --timeout 140 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|ERROR|values:" $OUT/ctest.log | head -20
stamp "ctest done"
grep -E "weight gradient stream|side_by_side|block tails|box_dfl_loss|test_weight_gradient|test_side_by_side" $OUT/ctest.log | head -8
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for name in branch_streams block_tails box_dfl_loss class_bce weight_grad_stream; do
  [ $SECONDS -lt 520 ] || break
  timeout 75 $H bench fused model=yolo9t $common steps=30 warmup=10 fused_kernels=measured+$name json=$OUT/fused_${name}_yolo9t.json > $W/f.log 2>&1
  stamp "fused $name yolo9t rc=$?: $(grep -E 'speedup|identical|equal|second stream|side by side' $W/f.log | head -5 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
done
stamp "end"

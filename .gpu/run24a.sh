# The next session's first call (cold; carry .devkit and .reference). The twenty-third session
# measured the stream levers and two of its three kernels (docs/benchmarks.md, "Twenty-third
# session"); this call checks its two fixes (the stream tests' capture request, class_bce's empty
# "every anchor counts" tensor) in the whole cuda ctest, measures class_bce (YOLOv9-t and YOLOX-s)
# and weight_grad_stream alone on YOLOX-s, level_streams (the branch streams at the detector's level
# only) on YOLOv9-t, then the bit-for-bit winners together.
# .gpu/run23b.sh (warm) with FUSED=measured+weight_grad_stream+block_tails is the call after:
# end to end beside LibreYOLO, which decides the default.
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
# The RepConvN probe (Python, LibreYOLO's network) beside the build: its figures are kernel times
# and graph replays, which the build's CPU load does not stretch.
(cd tests/tools && timeout 200 python3 rep_pair_experiment.py --steps 3 --replays 50 > $OUT/rep_pair.txt 2>&1; echo "rc=$?" >> $OUT/rep_pair.txt) &
probe=$!
scripts/gpu-build.sh > $W/build.log 2>&1 || grep -E "error" $W/build.log | head -30 | tee $OUT/build_errors.txt
tail -1 $W/build.log
stamp "built"
wait $probe; stamp "rep pair probe:"; tail -6 $OUT/rep_pair.txt
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc="*side_by_side*,*weight gradient stream*,*class_bce*,*NCCL*" \
  > $OUT/fixed_gpu_cases.log 2>&1; stamp "fixed GPU cases rc=$?: $(tail -3 $OUT/fixed_gpu_cases.log | tr '\n' ' ')"
(cd build-gpu && timeout 150 ctest -j8 --timeout 140 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
grep -E "tests passed|tests failed|ctest rc|Failed|ERROR|values:" $OUT/ctest.log | head -20
stamp "ctest done"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:class_bce yoloxs:class_bce yolo9t:level_streams yoloxs:weight_grad_stream yoloxs:block_tails \
            yolo9t:weight_grad_stream+block_tails yolo9t:weight_grad_stream+block_tails+level_streams \
            yolo9t:weight_grad_stream+block_tails+box_dfl_loss+class_bce; do
  IFS=: read -r model names <<< "$pair"
  [ $SECONDS -lt 480 ] || break
  timeout 60 $H bench fused model=$model $common steps=30 warmup=10 fused_kernels=measured+$names json=$OUT/fused_${names//+/_}_$model.json > $W/f.log 2>&1
  stamp "fused $names $model rc=$?: $(grep -E 'speedup|composed:|fused:' $W/f.log | cut -c1-300)"; tail -5 $W/f.log >> $OUT/fused_tails.log
done
stamp "end"

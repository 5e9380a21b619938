# The next session's first call (cold; carry .devkit and .reference): build, the whole cuda ctest
# (the stacked convolutions' GPU cases as rewritten after run25d, dense_slices' GPU case in its
# block_tails form, half_upsample's cases: none has run on a GPU), then who makes the copies of OUR step on the GPU
# (`bench step op_callers=aten::copy_`, eager, both detectors: after dense_slices, what is left of
# the 69 strided copies a YOLOv9-t step), `bench fused` of half_upsample (the necks' upsample in
# float16 under autocast), then end to end beside LibreYOLO with today's default.
source .gpu/common.sh
stamp "start"
# Beside the build: half_upsample's premise on LibreYOLO's networks (graph replays are GPU time).
(cd tests/tools && for m in "yolo9 t" "yolox s"; do set -- $m
   timeout 100 python3 upsample_probe.py $1 $2 > $OUT/upsample_$1$2.txt 2>&1
 done) &
probe=$!
cold_start
wait $probe; stamp "upsample probe:"; grep -hv Warn $OUT/upsample_*.txt | tail -6 | cut -c1-250
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc="*dense slices*,*stacked convolutions*,*half upsample*" > $OUT/new_gpu_cases.log 2>&1
stamp "new GPU cases rc=$?: $(grep -E 'relative|test cases' $OUT/new_gpu_cases.log | tr '\n' ' ' | cut -c1-400)"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for model in yolo9t yoloxs; do
  timeout 90 $H bench step model=$model $common steps=5 warmup=3 op_callers=aten::copy_ > $OUT/copies_$model.txt 2>&1
  stamp "copies $model rc=$?"; grep -A14 "who calls" $OUT/copies_$model.txt | cut -c1-260
done
for pair in yolo9t:half_upsample yoloxs:half_upsample; do  # the same bits by construction: faster?
  IFS=: read -r model names <<< "$pair"
  timeout 60 $H bench fused model=$model $common steps=30 warmup=10 fused_kernels=measured+$names json=$OUT/fused_${names}_$model.json > $W/f.log 2>&1
  stamp "fused $names $model rc=$?: $(grep -E 'speedup|composed:|fused:' $W/f.log | cut -c1-300)"
done
lib_trainbench yolo9t yolo9 t
for model in yolo9t yoloxs; do
  [ $SECONDS -lt 540 ] || break
  timeout 60 $H bench train model=$model $common epochs=3 eval_interval=3 name=e2e_$model > $W/t.log 2>&1
  stamp "ours $model rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; cat $W/t.log >> $OUT/train.log
done
stamp "end"

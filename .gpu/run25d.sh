# Twenty-fifth session, cold (carry .devkit and .reference): build, the whole cuda ctest (the
# stacked convolutions' GPU case rewritten against a float64 pass, dense_slices' GPU case new),
# then `bench fused` of dense_slices (one copy per channel chunk before its readers, bit for bit)
# against today's default, YOLOv9-t. Warm after: .gpu/run25e.sh (end to end).
source .gpu/common.sh
stamp "start"
cold_start
timeout 90 build-gpu/bin/libreyolo_unit_tests -tc="*dense slices*,*stacked convolutions*" > $OUT/new_gpu_cases.log 2>&1
stamp "new GPU cases rc=$?: $(grep -E 'distance from|test cases' $OUT/new_gpu_cases.log | tr '\n' ' ' | cut -c1-400)"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:dense_slices yolo9t:dense_slices+class_bce; do
  IFS=: read -r model names <<< "$pair"
  [ $SECONDS -lt 520 ] || break
  timeout 60 $H bench fused model=$model $common steps=30 warmup=10 fused_kernels=measured+$names json=$OUT/fused_${names//+/_}_$model.json > $W/f.log 2>&1
  stamp "fused $names $model rc=$?: $(grep -E 'speedup|composed:|fused:' $W/f.log | cut -c1-300)"; tail -5 $W/f.log >> $OUT/fused_tails.log
done
stamp "end"

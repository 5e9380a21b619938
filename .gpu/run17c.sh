# The seventeenth session's third call: cold build; the whole cuda ctest (new: the GPU Hungarian
# matching, test_batched_matching_gpu.cpp); then RT-DETR-r18's and D-FINE-n's steps with host
# matching (fused_kernels=measured, the default) and with the GPU solver
# (fused_kernels=linear_assignment), one after the other in this call.
source .gpu/common.sh
stamp "start"
cold_start
grep -E "match_batched on the GPU|batched_matching_gpu" $OUT/ctest.log | head -5
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for model in rtdetrr18 dfinen; do
  for fk in measured linear_assignment; do
    [ $SECONDS -lt 540 ] || break
    extra=""; [ $model = dfinen ] && extra="multi_scale=false"
    timeout 55 $H bench step model=$model $common $extra fused_kernels=$fk steps=30 warmup=10 json=$OUT/step_${model}_$fk.json > $W/s.log 2>&1
    stamp "step $model $fk rc=$?: $(grep -E 'bench step:' $W/s.log | cut -c1-520)"
    grep -E "fused_kernels:|warning|error" $W/s.log | head -4 >> $OUT/notes.txt
  done
done
stamp "end"

# The next session's first call (cold; carry .devkit and .reference): build, the whole cuda ctest
# (stacked_convolutions' GPU case, the NCCL group's shutdown), then `bench fused` against today's
# default (weight_grad_stream and block_tails joined it on 2026-12-05): YOLOv9's RepConvN pairs as
# one stacked convolution and BatchNorm, then with the two loss kernels besides. Beside the build,
# the Python probe of the CSP blocks' 1x1 pairs (tests/tools/rep_pair_experiment.py).
# Then warm: .gpu/run25b.sh (end to end) and .gpu/run24d.sh with CAND= the candidates (learning).
source .gpu/common.sh
stamp "start"
# The probe (Python, LibreYOLO's networks) beside the build: do the CSP blocks' 1x1 pairs gain as
# RepConvN's did (YOLOv9-t, then YOLOX-s)? Kernel times and graph replays: the build's CPU load
# does not stretch them.
(cd tests/tools && for f in "yolo9 t" "yolox s"; do set -- $f
   timeout 150 python3 rep_pair_experiment.py --family $1 --size $2 --steps 3 --replays 30 --loss-scale 1e-4 > $OUT/stack_probe_$1$2.txt 2>&1
 done) &
probe=$!
cold_start
wait $probe; stamp "stack probe:"; grep -hv Warn $OUT/stack_probe_*.txt | tail -8
timeout 60 build-gpu/bin/libreyolo_unit_tests -tc="*stacked convolutions*,*NCCL*" > $OUT/new_gpu_cases.log 2>&1
stamp "new GPU cases rc=$?: $(grep -E 'relative differences|test cases' $OUT/new_gpu_cases.log | tr '\n' ' ' | cut -c1-300)"
grep -c "destroy_process_group\|NCCL_ASYNC_ERROR_HANDLING is deprecated" $OUT/new_gpu_cases.log
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:stacked_convolutions yolo9t:stacked_convolutions+box_dfl_loss+class_bce yoloxs:class_bce; do
  IFS=: read -r model names <<< "$pair"
  [ $SECONDS -lt 500 ] || break
  timeout 60 $H bench fused model=$model $common steps=30 warmup=10 fused_kernels=measured+$names json=$OUT/fused_${names//+/_}_$model.json > $W/f.log 2>&1
  stamp "fused $names $model rc=$?: $(grep -E 'speedup|composed:|fused:' $W/f.log | cut -c1-300)"; tail -5 $W/f.log >> $OUT/fused_tails.log
done
stamp "end"

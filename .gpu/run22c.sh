# Twenty-second session's plan, second call (warm, right after run22a): the candidates run22a did
# not reach. YOLOv9-t with both second-stream kinds together, then YOLOX-s with each and both
# (bench fused fused_kernels=measured+NAMES: the default against the default plus the candidates,
# one process each). Last, the Python probe at batch 8 (#21's batch-8 target: the GPU's gaps
# between dependent kernels).
source .gpu/common.sh
stamp "start"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for pair in yolo9t:weight_grad_stream+branch_streams yoloxs:weight_grad_stream yoloxs:branch_streams \
            yoloxs:weight_grad_stream+branch_streams; do
  IFS=: read -r model names <<< "$pair"
  [ $SECONDS -lt 480 ] || break
  timeout 100 $H bench fused model=$model $common steps=40 warmup=10 fused_kernels=measured+$names json=$OUT/fused_${names}_$model.json > $W/f.log 2>&1
  stamp "fused $names $model rc=$?: $(grep -E 'speedup|identical|equal|second stream|side by side' $W/f.log | head -5 | cut -c1-300)"; cat $W/f.log >> $OUT/fused.log
done
if [ $SECONDS -lt 520 ]; then
  timeout 70 python3 tests/tools/branch_streams_experiment.py yolo9 t --batch 8 > $OUT/branch_yolo9t_batch8.txt 2>&1
  stamp "probe batch 8 rc=$?"
fi
stamp "end"

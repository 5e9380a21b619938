# After batch_norm_memsets_merged joined measured (export OUT DEADLINE=540; cold or warm): the
# whole cuda ctest with the new default, the default's step and end to end for both models, the
# log line saying the memsets moved, and YOLOv9-t's batch-8 step (#21's 1.03x-of-GPU-busy target).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
[ -d $W/coco128x8 ] || prepare_data
build_gpu
whole_ctest 170
fits 60 && bench_fused $OUT/fused_default_yolo9t.txt yolo9t weight_casts
grep -E "memsets clear|zero-span" $OUT/fused_default_yolo9t.txt | head -2
e2e_model yolo9t measured measured
e2e_model yoloxs measured
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=8 steps=30 warmup=10 > $OUT/step_b8.txt 2>&1; stamp "batch 8 rc=$?: $(grep -E 'fastest|GPU busy' $OUT/step_b8.txt | cut -c1-400)"; }
stamp "end"

# Warm, right after run43a on the same machine (carry .devkit and .reference; export OUT DEADLINE=540):
# #21's done-when figures of the day on whatever card this is (the are an H200's): YOLOv9-t's
# batch-16 step (GPU busy, host issue) and batch-8 step (fastest within 1.03x of GPU busy?), both
# models end to end twice; then the built-but-not-default kernels whose learning checks were too noisy
# to call, together (prediction_rows + image_convolutions): what would they buy if a paired learning
# check cleared them?
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
[ -d $W/coco128x8 ] || prepare_data
[ -x $H ] || build_gpu
# Who the 155 memsets still in YOLOv9-t's step graph belong to: the kernel after each, from the
# census's full trace (tests/tools/memset_neighbours.py; the trace comes back for offline reading).
fits 60 && { CENSUS_TRACE=1 census yolo9 t measured > /dev/null; zcat $OUT/trace_yolo9t.json.gz > $W/trace.json 2>/dev/null && python3 tests/tools/memset_neighbours.py $W/trace.json --top 12 --width 110 | tee $OUT/memset_neighbours.txt | head -48; }
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=30 warmup=10 > $OUT/step_b16.txt 2>&1; stamp "batch 16 rc=$?: $(grep -E 'fastest|GPU busy|host' $OUT/step_b16.txt | cut -c1-400)"; }
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=8 steps=30 warmup=10 > $OUT/step_b8.txt 2>&1; stamp "batch 8 rc=$?: $(grep -E 'fastest|GPU busy|host' $OUT/step_b8.txt | cut -c1-400)"; }
e2e_model yolo9t measured measured
e2e_model yoloxs measured measured
fits 60 && bench_fused $OUT/fused_rows_images_yolo9t.txt yolo9t prediction_rows+image_convolutions
fits 60 && bench_fused $OUT/fused_rows_images_yoloxs.txt yoloxs prediction_rows+image_convolutions
stamp "end"

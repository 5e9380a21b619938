# Cold, one call, in order of need (carry .devkit and .reference; export OUT DEADLINE=570): the
# device was hard to get in the forty-third session (fifteen refused starts), so the essentials first.
# 1. The whole cuda ctest (required once a session that changes code).
# 2. batch_norm_memsets_recording_only eagerly (cuda_graph=false) for both models: does the
#    default's own-workspace BatchNorm cost the eager step anything?
# 3. Who the 155 memsets still in YOLOv9-t's step graph belong to (census trace + memset_neighbours.py).
# 4. #21's figures of the day: YOLOv9-t's batch-16 and batch-8 steps, both models end to end.
# 5. recording_only captured (the memsets still moved?), the stream levers again.
source .gpu/common.sh
DEADLINE=${DEADLINE:-570}
stamp "start"
prepare_data
build_gpu
whole_ctest 110
for model in yolo9t yoloxs; do fits 45 && eager_fused $model batch_norm_memsets_recording_only; done
fits 60 && { CENSUS_TRACE=1 census yolo9 t measured > /dev/null; zcat $OUT/trace_yolo9t.json.gz > $W/trace.json 2>/dev/null && python3 tests/tools/memset_neighbours.py $W/trace.json --top 12 --width 110 | tee $OUT/memset_neighbours.txt | head -60; python3 tests/tools/memset_neighbours.py $W/trace.json --top 12 --width 110 --match direct_copy > $OUT/copy_neighbours.txt; }
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=30 warmup=10 > $OUT/step_b16.txt 2>&1; stamp "batch 16 rc=$?: $(grep -E 'fastest|GPU busy|host' $OUT/step_b16.txt | cut -c1-300)"; }
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=8 steps=30 warmup=10 > $OUT/step_b8.txt 2>&1; stamp "batch 8 rc=$?: $(grep -E 'fastest|GPU busy|host' $OUT/step_b8.txt | cut -c1-300)"; }
e2e_model yolo9t measured
e2e_model yoloxs measured
fits 60 && bench_fused $OUT/fused_recording_only_yolo9t.txt yolo9t batch_norm_memsets_recording_only
fits 60 && bench_fused $OUT/fused_branch_streams_yolo9t.txt yolo9t branch_streams
# The user's default (cuda_graph=false, as LibreYOLO): YOLOv9-t end to end eager, not measured for weeks.
fits 45 && { timeout 45 $H bench train model=yolo9t $EAGER_COMMON batch=16 epochs=3 eval_interval=3 name=eager_e2e > $OUT/yolo9t_eager.log 2>&1; stamp "ours yolo9t eager rc=$?: $(grep -E 'bench train:' $OUT/yolo9t_eager.log | cut -c1-160)"; }
stamp "end"

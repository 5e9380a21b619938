# Cold, next session's first call (carry .devkit and .reference; export OUT DEADLINE=540).
# 1. The whole cuda ctest at whatever changed since run42d.
# 2. Does batch_norm_memsets_merged (in the default since run42b) cost the *eager* step anything?
#    Eagerly the own workspaces buy nothing (no graph to edit), while each BatchNorm call becomes a
#    custom autograd function with a registry lookup. batch_norm_memsets_recording_only (built in
#    session 42, not yet run on a GPU) takes them only while a graph is recorded: bench fused with
#    measured+batch_norm_memsets_recording_only, eager (is the default's eager step slower than
#    PyTorch's own calls?) and captured (the same speed and memsets moved, or it lost them?). If
#    eager gains and captured holds, it belongs in measured.
# 3. Which ops issue the memsets still in YOLOv9-t's step graph (155 a step after the merge), in
#    LibreYOLO's own network (tests/tools/op_attribution.py --kernel Memset).
# 4. The new default end to end, both models (run42d ran out of budget before these).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
prepare_data
build_gpu
whole_ctest 110
EAGER="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=false"
for model in yolo9t yoloxs; do
  fits 60 || break
  timeout 60 $H bench fused model=$model $EAGER batch=16 steps=20 warmup=5 fused_kernels=measured+batch_norm_memsets_recording_only > $OUT/eager_recording_only_$model.txt 2>&1
  stamp "eager, recording only $model rc=$?: $(grep -E 'speedup|composed:|fused:' $OUT/eager_recording_only_$model.txt | cut -c1-330)"
done
fits 60 && bench_fused $OUT/fused_recording_only_yolo9t.txt yolo9t batch_norm_memsets_recording_only
grep -E "memsets clear|zero-span" $OUT/fused_recording_only_yolo9t.txt | head -2
fits 60 && { timeout 60 python3 tests/tools/op_attribution.py yolo9 t --steps 3 --top 20 --kernel Memset > $OUT/memset_ops_yolo9t.txt 2>&1; stamp "memset attribution rc=$?"; head -40 $OUT/memset_ops_yolo9t.txt | cut -c1-220; }
e2e_model yolo9t measured
e2e_model yoloxs measured
# With the memsets off the chain the step's critical path is shorter: the stream levers measured
# before it (branch_streams 0.993x, level_streams 1.003x) may now pay.
fits 60 && bench_fused $OUT/fused_branch_streams_yolo9t.txt yolo9t branch_streams
fits 60 && bench_fused $OUT/fused_level_streams_yolo9t.txt yolo9t level_streams
stamp "end"

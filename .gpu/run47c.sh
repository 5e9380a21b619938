# Cold, one call, when the device time left allows one call only (carry .devkit and .reference;
# export OUT DEADLINE=...): the graph launch probe (about 15 s), the build (ninja's log comes
# back), the whole cuda ctest in at most 115 s, then batch_norm_memsets_leading in YOLOv9-t's step
# (bench fused against the default) and YOLOv9-t's default step, each where the deadline allows.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "run47c on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
graph_probe
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 115 ? DEADLINE - SECONDS : 115 ))
fits 60 && bench_fused $OUT/leading_yolo9t.txt yolo9t batch_norm_memsets_leading && touch /tmp/leading_done
step_yolo9t 16
stamp "end"

# Cold, the session's last chance (carry .devkit and .reference; export OUT): fifteen refused starts
# left about 400 device seconds, so only the build and the whole cuda ctest (required once a session
# that changes code), then the first eager check of batch_norm_memsets_recording_only if time is left.
source .gpu/common.sh
DEADLINE=${DEADLINE:-360}
stamp "start"
prepare_data
build_gpu
left=$((DEADLINE - SECONDS - 5))
[ $left -gt 110 ] && left=110
whole_ctest $left
EAGER="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=false"
fits 40 && { timeout 40 $H bench fused model=yolo9t $EAGER batch=16 steps=20 warmup=5 fused_kernels=measured+batch_norm_memsets_recording_only > $OUT/eager_recording_only_yolo9t.txt 2>&1; stamp "eager, recording only yolo9t rc=$?: $(grep -E 'speedup|composed:|fused:' $OUT/eager_recording_only_yolo9t.txt | cut -c1-330)"; }
stamp "end"

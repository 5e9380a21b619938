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
fits 45 && eager_fused yolo9t batch_norm_memsets_recording_only
stamp "end"

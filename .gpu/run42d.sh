# Cold, the session's last call (carry .devkit and .reference; export OUT DEADLINE=370): the whole
# cuda ctest at the final code (the memsets case's checks now one helper for step and region), the
# new default's YOLOX-s end to end, and YOLOv9-t's census with its full trace, to find out offline
# which kernels the memsets still in the step graph precede (the convolutions' or cuBLAS's?).
source .gpu/common.sh
DEADLINE=${DEADLINE:-370}
stamp "start"
prepare_data
build_gpu
unit_cases '*batch_norm_memsets*' $OUT/batch_norm_memsets_case.txt
whole_ctest 110
fits 20 && e2e_model yoloxs measured
fits 30 && CENSUS_TRACE=1 census yolo9 t measured
ls -la $OUT | head -20
stamp "end"

# Cold, one call (carry .devkit and .reference; export OUT DEADLINE=...): the build (its ninja log
# comes back: `tests/tools/ninja_log_summary.py ninja_log.txt`), the whole cuda ctest in what the
# deadline leaves (at most 115 s), then #21's figures of the day on whichever card came (the
# issue's targets are an H200's): YOLOv9-t's captured step at batch 16, both models end to end,
# batch 8. Warm follow-ups: run45c.sh's eager pair and YOLOX-s's eager A/B (without its build).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
prepare_data
build_gpu
whole_ctest $(( DEADLINE - SECONDS < 115 ? DEADLINE - SECONDS : 115 ))
step_yolo9t 16
e2e_model yolo9t measured
e2e_model yoloxs measured
step_yolo9t 8
stamp "end"

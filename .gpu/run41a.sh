# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the fused optimizer step with its
# measured SGD rounding (its calibration first run on a GPU here), its GPU case
# alone first (a crash there aborted the whole unit binary in run40a), then the whole ctest (the
# unit binary has not run whole on a GPU since the thirty-eighth session), then the step and end
# to end with optimizer_step, and with prediction_rows beside it.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
prepare_data
build_gpu
unit_cases '*fused optimizer step*' $OUT/optimizer_step_case.txt
whole_ctest 170
fits 60 && bench_fused $OUT/fused_optimizer_step_yolo9t.txt yolo9t optimizer_step
grep -E "optimizer step|fused_kernels: this step" $OUT/fused_optimizer_step_yolo9t.txt | head -3
fits 60 && bench_fused $OUT/fused_optimizer_step_yoloxs.txt yoloxs optimizer_step
fits 60 && bench_fused $OUT/fused_both_yolo9t.txt yolo9t optimizer_step+prediction_rows
e2e_model yolo9t measured measured+optimizer_step
e2e_model yoloxs measured measured+optimizer_step
stamp "end"

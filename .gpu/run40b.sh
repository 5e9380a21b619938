# Warm, right after run40a (export OUT DEADLINE=...): YOLOX-s end to end with and without the
# fused optimizer step, YOLOv9-t's census with it (the optimizer class's kernels), then
# prediction_rows' learning check (memorisation pairs, seeds 0 and 1) as far as the deadline allows.
source .gpu/common.sh
DEADLINE=${DEADLINE:-480}
stamp "start"
prepare_data
e2e_model yoloxs measured measured+optimizer_step
fits 70 && census yolo9 t measured+optimizer_step
grep -E "optimizer_step_kernels|update_kernel|check_kernel|finish_kernel|multi_tensor|fused_sgd|_amp_" $OUT/kernels_yolo9t.txt 2>/dev/null | cut -c1-160
memorise_pairs yolo9t 200 prediction_rows 0 1
stamp "end"

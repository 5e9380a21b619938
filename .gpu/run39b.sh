# Warm, right after run39a (export OUT DEADLINE=...): YOLOX-s end to end with and without
# prediction_rows, then its learning check for YOLOv9-t (memorisation pairs, seeds 0 and 1, the
# default against measured+prediction_rows, four runs side by side), as far as the deadline allows.
source .gpu/common.sh
DEADLINE=${DEADLINE:-480}
stamp "start"
prepare_data
e2e_model yoloxs measured measured+prediction_rows
memorise_pairs yolo9t 200 prediction_rows 0 1
stamp "end"

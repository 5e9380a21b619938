# Warm, after run35c (export OUT DEADLINE=560): small_convolutions' learning check with two more
# seeds (run35b's seeds 0 and 1 came out lower with it, by a plateau-exit time shift on seed 0):
# YOLOv9-t memorisation, 200 epochs, seeds 2 and 3, with and without, four side by side.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
memorise_pairs yolo9t 200 small_convolutions 2 3
stamp "end"

# Warm, after run34c (export OUT DEADLINE=560): aligned_channels' learning check again. run34b's
# 200 epochs left YOLOX-s memorisation still on its way off the plateau, at a time that varied from
# run to run (mAP50 0.11-0.67 across the four), so it could not resolve 2%. Here 400 epochs (the
# runs near their ceiling), two new seeds, both settings, four side by side.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
memorise_yoloxs_pairs 400 aligned_channels 2 3
stamp "end"

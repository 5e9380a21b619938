# After run34a, warm (export OUT DEADLINE=560): aligned_channels' learning check, the last one
# before it can join the default (YOLOX-s: step 1.016x, end to end +2.0% in the thirty-third
# session). YOLOX-s memorisation (COCO128's train images as both splits, augmentation off, 200
# epochs), with and without it, seeds 0 and 1, four runs side by side (workers=4 each).
# (Ran 2026-12-06 as the script it was then; the shared steps now live in common.sh.)
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
memorise_yoloxs_pairs 200 aligned_channels 0 1
stamp "end"

# Warm, after run35a (export OUT DEADLINE=560): small_convolutions' learning check, if run35a found
# it faster in the step and end to end: YOLOv9-t memorisation (COCO128's 128 training images as both
# splits, augmentation off), 200 epochs, seeds 0 and 1, with and without, four side by side.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
memorise_pairs yolo9t 200 small_convolutions 0 1
stamp "end"

# Warm (export OUT DEADLINE=560): image_convolutions' learning check for YOLOX-s, whose Focus it
# changes (the sums of 108 products in another order; YOLOv9-t's four seeds passed in the
# thirty-eighth session, when it joined the default). 400 epochs, as .gpu/run34d.sh takes for
# YOLOX-s (at 200 its memorisation is still leaving the plateau at a time that varies from run to
# run); seeds 0 and 1, the default without it (measured-image_convolutions) against the default,
# four side by side; then tests/tools/learning_pairs.py on the logs.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
memorise_without yoloxs 400 image_convolutions 0 1
stamp "end"

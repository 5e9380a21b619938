# Nineteenth session, sixth call (Python only, no build): where our YOLOv9 criterion's GPU time
# goes, by stage and op (tests/tools/yolo9_loss_attribution.py, a transliteration of the C++
# criterion), with 48 padded rows as in the captured step and with 96.
source .gpu/common.sh
stamp "start"
timeout 60 python3 tests/tools/yolo9_loss_attribution.py --rows 48 > $OUT/loss_rows48.txt 2>&1; stamp "rows 48 rc=$?"
timeout 60 python3 tests/tools/yolo9_loss_attribution.py --rows 96 > $OUT/loss_rows96.txt 2>&1; stamp "rows 96 rc=$?"

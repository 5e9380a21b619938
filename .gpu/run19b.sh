# Nineteenth session, first call (Python only, no build): issue #21's concatenation lever tried
# on LibreYOLO's own network (tests/tools/dense_concat_experiment.py): which ops launch the
# strided copies, and the kernels a training pass needs as written, with dense cat gradients,
# and with dense chunk halves too.
source .gpu/common.sh
stamp "start"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader >> $OUT/timeline.txt
timeout 200 python3 tests/tools/dense_concat_experiment.py yolo9 t --steps 3 > $OUT/dense_yolo9t.txt 2>&1
stamp "yolo9 t rc=$?"
timeout 150 python3 tests/tools/dense_concat_experiment.py yolox s --steps 3 > $OUT/dense_yoloxs.txt 2>&1
stamp "yolox s rc=$?"

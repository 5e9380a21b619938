# Planned for the eighteenth session's first call (written in the seventeenth, not run yet): cold
# build and the whole cuda ctest (new since the last GPU run: the measured default list naming
# linear_assignment and deform_sampling, the fused-choice log helper); then RT-DETR-r18's and
# D-FINE-n's pairs with the plain defaults (no fused_kernels option: the list itself, which the
# seventeenth session timed only as `auto`), each beside LibreYOLO's trainer in this call.
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
eval "$(sed -n '/^pair() {/,/^}/p' .gpu/run17a.sh)"
PAIR_DEADLINE=420
pair rtdetrr18 rtdetr:r18:16 75 45 3 1
grep -E "fused_kernels:" /tmp/runs/e2e_rtdetrr18/*.log 2>/dev/null | head -3 >> $OUT/notes.txt
# Fits only if the build is quick; otherwise a warm second call runs it (as run17b did).
PAIR_DEADLINE=400
pair dfinen dfine:n:16 120 60 2 0
stamp "end"

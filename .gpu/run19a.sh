# Planned for the nineteenth session's first call (written in the eighteenth, not run yet): cold
# build and the whole cuda ctest (new since the last GPU run: the weight copies drop gradients a
# failed step left, df7ec75; the revert of the one-launch BatchNorm + SiLU, 40267f9); then
# RT-DETR-r18's and D-FINE-n's pairs with the plain defaults (no fused_kernels option: the
# default list naming linear_assignment and deform_sampling, timed in the seventeenth session only
# as `auto`), each beside LibreYOLO's trainer in this call; YOLOv9-t's whole step with eager
# capture compared (bench capture: eager per-layer casts against the graph's weight copies); the
# op attribution of YOLOv9-t's kernels (the next lever's evidence).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 100 $H bench capture model=yolo9t $common steps=40 warmup=10 > $W/c.log 2>&1
stamp "capture yolo9t rc=$?: $(grep -E 'speedup' $W/c.log | cut -c1-300)"; cat $W/c.log >> $OUT/capture.log
# #21's next lever: which ops launch YOLOv9-t's strided copies, non-vectorized silu_backward
# kernels and memsets (the fourteenth session's run of this ran past a 40 s limit).
timeout 90 python3 tests/tools/op_attribution.py yolo9 t --steps 3 --top 40 > $OUT/ops_yolo9t.txt 2>&1
stamp "op attribution yolo9t rc=$?"
eval "$(sed -n '/^pair() {/,/^}/p' .gpu/run17a.sh)"
PAIR_DEADLINE=420
pair rtdetrr18 rtdetr:r18:16 75 45 3 1
grep -E "fused_kernels:" /tmp/runs/e2e_rtdetrr18/*.log 2>/dev/null | head -3 >> $OUT/notes.txt
PAIR_DEADLINE=400
pair dfinen dfine:n:16 120 60 2 0
stamp "end"

# Planned for the fifteenth session's second call (written in the fourteenth, not run yet; warm
# after run15a.sh, so no rebuild): issue #21's learning checks with the whole-step graph and the
# default fused kernels on: the YOLOv9 issue's memorisation run (200 epochs, augmentation off;
# 2026-11-29: mAP50 0.835) and the default recipe's 100 epochs (2026-11-29: final training loss
# 8.968); each within 2% of those numbers (docs/benchmarks.md, "Learning, YOLOv9-t on COCO128").
source .gpu/common.sh
stamp "start"
[ -x $H ] || { scripts/gpu-build.sh > $W/build.log 2>&1; tail -2 $W/build.log; }
self_yaml
c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 seed=0 cuda_graph=true project=/tmp/runs"
timeout 200 $H train model=yolo9t $c epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 name=memorise > $W/m.log 2>&1
stamp "memorisation rc=$?: $(grep -E 'mAP50' $W/m.log | tail -2 | tr '\n' ' ' | cut -c1-300)"
cp /tmp/runs/memorise/results.csv $OUT/memorise_results.csv 2>/dev/null; grep -E 'cuda_graph|fused_kernels' $W/m.log | head -5 > $OUT/memorise_notes.txt
timeout 150 $H train model=yolo9t $c epochs=100 eval_interval=100 name=default100 > $W/d.log 2>&1
stamp "default 100 rc=$?: $(grep -E '^epoch 100/' $W/d.log | cut -c1-200)"
cp /tmp/runs/default100/results.csv $OUT/default100_results.csv 2>/dev/null
stamp "end"

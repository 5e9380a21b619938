# The seventeenth session's fifth call (warm after run17d): RT-DETR-r18's pair again, ours with the
# GPU matching alone and with every fused kernel (auto: also the deformable sampling, which did
# not pay end to end while the step waited on the host), LibreYOLO in the same call.
source .gpu/common.sh
stamp "start"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
rm -rf /tmp/anchor_ds; (cd $W && AMP=1 COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 75 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_e rtdetr:r18:16 > $W/lib_e.log 2>&1)
stamp "LibreYOLO rtdetrr18: $(tail -1 $W/lib_e.log | cut -c1-300)"
for fk in linear_assignment auto; do
  timeout 45 $H bench train model=rtdetrr18 $common fused_kernels=$fk epochs=3 eval_interval=3 name=e_$fk > $W/t.log 2>&1
  stamp "ours rtdetrr18 $fk rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"
done
stamp "end"

# The sixteenth session's last call: cold build and the whole cuda ctest at the final tree; the
# first GPU run of RT-DETR's decoder inside the captured region (network_with_denoising: its
# denoising queries padded to 200): its step (captures, host time, host syncs), then end to end
# beside LibreYOLO's trainer in the same call (#17's 6x), then bench capture if time is left.
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 50 $H bench step model=rtdetrr18 $common steps=30 warmup=10 json=$OUT/step_rtdetrr18.json > $W/s.log 2>&1
stamp "step rtdetrr18 rc=$?: $(grep -E 'bench step:' $W/s.log | cut -c1-400)"; grep -E "cuda_graph|warning|error" $W/s.log | head -8 > $OUT/step_notes.txt
if [ $SECONDS -lt 250 ]; then
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 70 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_r rtdetr:r18:16 > $W/lib_r.log 2>&1)
  stamp "LibreYOLO rtdetrr18: $(tail -1 $W/lib_r.log | cut -c1-300)"; cp $W/lib_r.log $OUT/reference.log
  timeout 45 $H bench train model=rtdetrr18 $common epochs=3 eval_interval=3 name=e2e_r > $W/t.log 2>&1
  stamp "ours rtdetrr18 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; grep -E "cuda_graph|bench train|warning" $W/t.log | head -12 > $OUT/train_notes.txt
fi
if [ $SECONDS -lt 350 ]; then
  timeout 40 $H bench capture model=rtdetrr18 $common steps=12 warmup=3 > $W/c.log 2>&1
  stamp "capture rtdetrr18 rc=$?: $(grep -E 'speedup|trajector' $W/c.log | cut -c1-300)"
fi
stamp "end"

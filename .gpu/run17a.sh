# Planned for the seventeenth session's first call (written in the sixteenth, not run yet): cold
# build; the whole cuda ctest (new since the last GPU run: pad_denoising's device-side value,
# sdk::detr::DenoisingInputs, D-FINE's decoder in its captured region); RT-DETR-r18's step with
# the captured decoder (expect 1 host sync a step, was 2); D-FINE-n's step with multi_scale=false
# (its decoder captured for the first time); then end to end beside LibreYOLO's trainer in the
# same call: RT-DETR-r18 (#17's 6x), then D-FINE-n (#18's 6x, its default multi-scale recipe).
source .gpu/common.sh
stamp "start"
cold_start
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 50 $H bench step model=rtdetrr18 $common steps=30 warmup=10 json=$OUT/step_rtdetrr18.json > $W/s.log 2>&1
stamp "step rtdetrr18 rc=$?: $(grep -E 'bench step:' $W/s.log | cut -c1-400)"
timeout 60 $H bench step model=dfinen $common multi_scale=false steps=30 warmup=10 json=$OUT/step_dfinen.json > $W/s.log 2>&1
stamp "step dfinen rc=$?: $(grep -E 'bench step:' $W/s.log | cut -c1-400)"; grep -E "cuda_graph|warning" $W/s.log | head -6 >> $OUT/notes.txt
# As the earlier pairs: RT-DETR ours 3 epochs (2-3 timed); D-FINE ours 2 epochs, so both train
# epoch 2 without strong augmentation (docs/benchmarks.md). Check before comparing D-FINE: the
# docs' command sets AMP=0, but today's .reference/libreyolo_trainbench.py reads no AMP variable
# and passes amp=True; say which precision LibreYOLO's side ran.
pair() {  # MODEL LIBREYOLO_SPEC LIB_TIMEOUT OUR_TIMEOUT OUR_EPOCHS LIB_AMP
  [ $SECONDS -lt ${PAIR_DEADLINE:-420} ] || return
  rm -rf /tmp/anchor_ds; (cd $W && AMP=$6 COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout $3 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_$1 $2 > $W/lib_$1.log 2>&1)
  stamp "LibreYOLO $1: $(tail -1 $W/lib_$1.log | cut -c1-300)"; cat $W/lib_$1.log >> $OUT/reference.log
  timeout $4 $H bench train model=$1 $common epochs=$5 eval_interval=$5 name=e2e_$1 > $W/t.log 2>&1
  stamp "ours $1 rc=$?: $(grep -E 'bench train:' $W/t.log | cut -c1-300)"; grep -E "cuda_graph|bench train" $W/t.log | head -8 >> $OUT/notes.txt
}
pair rtdetrr18 rtdetr:r18:16 75 45 3 1
pair dfinen dfine:n:16 90 60 2 0
stamp "end"

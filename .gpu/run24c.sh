# Twenty-fourth session, a warm call after run24a/run23b: the census of the captured step by kernel
# name (profile run + the roofline's classes) with the candidates on, so the next lever is chosen
# from today's step rather than the nineteenth session's. Not run in the twenty-fourth session (its
# device time went to run24a and end to end); FUSED: the candidates not yet in the default.
source .gpu/common.sh
FUSED=${FUSED:-measured+stacked_convolutions+box_dfl_loss+class_bce}
stamp "start ($FUSED)"
[ -d $W/coco128x8 ] || { rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null; }
for m in "yolo9 t" "yolox s"; do
  set -- $m
  [ $SECONDS -lt 450 ] || break
  timeout 60 $H profile run $W/coco128x8/data.yaml --model $1 --size $2 --batch 16 workers=16 cache=ram device=0 cuda_graph=true fused_kernels=$FUSED project=/tmp/runs name=prof24_$1$2 > $W/prof.log 2>&1; stamp "profile $1$2 rc=$? $(tail -2 $W/prof.log | cut -c1-300)"
  f=$(find /tmp/runs/prof24_$1$2* -name profile.json | head -1)
  if [ -n "$f" ]; then
    gzip -c "$f" > $OUT/profile_$1$2.json.gz
    $H profile kernels "$f" --top 200 > $OUT/kernels_$1$2.txt 2>&1
    timeout 60 python3 tests/tools/roofline.py --libreyolo $R/libreyolo --family $1 --size $2 --profile "$f" --markdown > $OUT/roofline_$1$2.md 2>&1
    tail -14 $OUT/roofline_$1$2.md
  fi
done
stamp "end"

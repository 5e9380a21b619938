# Nineteenth session, third call (cold): build and the whole cuda ctest (df7ec75 and the revert
# 40267f9 are CPU-tested only); then #21's census of YOLOv9-t's and YOLOX-s's captured steps by
# kernel name with today's default (profile run, cuda_graph=true; the roofline's classes), and
# the batch-8 and batch-16 steps (the "fastest step within 1.03x of GPU busy" at batch 8).
source .gpu/common.sh
stamp "start"
cold_start
for m in "yolo9 t" "yolox s"; do
  set -- $m
  timeout 40 $H profile run $W/coco128x8/data.yaml --model $1 --size $2 --batch 16 workers=16 cache=ram device=0 cuda_graph=true project=/tmp/runs name=prof_$1$2 > $W/prof.log 2>&1; stamp "profile $1$2 rc=$? $(tail -2 $W/prof.log)"
  f=$(find /tmp/runs/prof_$1$2* -name profile.json | head -1)
  if [ -n "$f" ]; then
    gzip -c "$f" > $OUT/profile_$1$2.json.gz
    $H profile kernels "$f" --top 150 > $OUT/kernels_$1$2.txt 2>&1
    timeout 60 python3 tests/tools/roofline.py --libreyolo $R/libreyolo --family $1 --size $2 --profile "$f" --markdown > $OUT/roofline_$1$2.md 2>&1
  fi
done
common="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
for b in 8 16; do
  [ $SECONDS -lt 520 ] || break
  timeout 45 $H bench step model=yolo9t $common batch=$b steps=40 warmup=10 json=$OUT/step_yolo9t_b$b.json > $W/s.log 2>&1
  stamp "step yolo9t batch $b rc=$?: $(grep 'bench step:' $W/s.log | cut -c1-420)"
done
stamp "end"

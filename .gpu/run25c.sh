# Twenty-fifth session, Python only (no build): which ops of LibreYOLO's YOLOv9-t launch the
# step's strided copies (91 a step in our captured step's census, 10 us each) and its memsets
# (571 a step), by caller chain, to choose what our network should stop doing.
source .gpu/common.sh
stamp "start"
for m in "yolo9 t"; do set -- $m
  timeout 200 python3 tests/tools/op_attribution.py $1 $2 --steps 3 --top 45 --callers aten::copy_ --kernel Memset > $OUT/attribution_$1$2.txt 2>&1
  stamp "attribution $1$2 rc=$?"; head -30 $OUT/attribution_$1$2.txt | cut -c1-200
done
stamp "end"

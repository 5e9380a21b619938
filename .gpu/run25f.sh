# Twenty-fifth session, Python only (not run: too little device time was left; run26a.sh runs the probe): does
# LibreYOLO's network gain with its upsamples in float16 under autocast (half_upsample's premise),
# and are the loss and gradients bitwise equal?
source .gpu/common.sh
stamp "start"
for m in "yolo9 t" "yolox s"; do set -- $m
  (cd tests/tools && timeout 70 python3 upsample_probe.py $1 $2 > $OUT/upsample_$1$2.txt 2>&1)
  stamp "upsample probe $1$2 rc=$?"; grep -v Warn $OUT/upsample_$1$2.txt | tail -4 | cut -c1-250
done
stamp "end"

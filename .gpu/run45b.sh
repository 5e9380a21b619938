# Warm, right after run45a (the build and data kept; export OUT DEADLINE=...): the eager default
# (fused_kernels=measured, now with eager_optimizer_step) against measured-eager_optimizer_step,
# end to end, alternated (YOLOv9-t twice each, YOLOX-s once each), YOLOX-s's eager step A/B in one
# process, and the captured YOLOv9-t step of the day.
source .gpu/common.sh
DEADLINE=${DEADLINE:-400}
stamp "start"
[ -d $W/coco128x8 ] || prepare_data
[ -x $H ] || { stamp "no build here: run45a first"; exit 1; }
e2e() {  # NAME MODEL [k=v...]: bench train eager, 3 epochs, stamped
  local name=$1 model=$2; shift 2
  timeout 55 $H bench train model=$model $EAGER_COMMON batch=16 epochs=3 eval_interval=3 name=$name "$@" > $OUT/$name.log 2>&1
  stamp "$name rc=$?: $(grep -E 'bench train:' $OUT/$name.log | cut -c1-170) $(grep -c 'optimizer step (unscale' $OUT/$name.log) fused-step lines"
}
fits 55 && e2e y9_eager_default_1 yolo9t
fits 55 && e2e y9_eager_without_1 yolo9t fused_kernels=measured-eager_optimizer_step
fits 50 && { timeout 50 $H bench fused model=yoloxs $EAGER_COMMON batch=16 steps=8 warmup=3 fused_kernels=measured-eager_optimizer_step > $OUT/x_eager_step.txt 2>&1; stamp "yoloxs eager measured (with) vs measured-eager_optimizer_step rc=$?: $(grep -E 'composed:|fused: |speedup' $OUT/x_eager_step.txt | cut -c1-330)"; }
fits 55 && e2e y9_eager_without_2 yolo9t fused_kernels=measured-eager_optimizer_step
fits 55 && e2e y9_eager_default_2 yolo9t
fits 55 && e2e x_eager_default yoloxs
fits 55 && e2e x_eager_without yoloxs fused_kernels=measured-eager_optimizer_step
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=16 steps=30 warmup=10 > $OUT/step_b16.txt 2>&1; stamp "captured batch 16 rc=$?: $(grep -E 'fastest' $OUT/step_b16.txt | cut -c1-300)"; }
stamp "end"

"""Trains with LibreYOLO itself (the Python reference) and records its per-epoch training loss,
for the "loss within 10% of LibreYOLO's after N epochs" comparison (docs/benchmarks.md).

LibreYOLO is imported from PYTHONPATH at run time (a checkout of its `libreyolo` package, never
part of this project). Its own validation needs pycocotools, which the GPU machine lacks, so
validation is switched off; our evaluator scores predictions where needed.

Usage:
  PYTHONPATH=.reference python3 tests/python/libreyolo_reference_train.py OUT_DIR FAMILY SIZE \
      COCO128_DIR [key=value ...]
FAMILY is yolo9, yolox, rtmdet, rtdetr or dfine; the train split is COCO128's 128 train images (val points at the same
images); key=value pairs go to LibreYOLO's model.train() (e.g. epochs=100 seed=0 batch=16),
except resume_from=CHECKPOINT, which loads that LibreYOLO checkpoint and continues its run
(LibreYOLO's own resume=True; the recorded epochs are then the continued ones only).
Writes OUT_DIR/reference_train.json: the per-epoch loss, its components and epoch seconds.
"""
import json
import sys
import time
from pathlib import Path


def typed(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def write_data_yaml(coco128: Path, folder: Path) -> Path:
    names = [line.split(":", 1)[1].strip() for line in (coco128 / "data.yaml").read_text().splitlines()
             if line.startswith("  ") and ":" in line]
    folder.mkdir(parents=True, exist_ok=True)
    yaml = folder / "coco128_train_as_val.yaml"
    yaml.write_text(f"path: {coco128.resolve()}\ntrain: images/train2017\nval: images/train2017\n"
                    f"nc: {len(names)}\nnames: {json.dumps(names)}\n")
    return yaml


class EpochRecorder:
    """LibreYOLO's callback protocol: one record per finished epoch."""

    def __init__(self):
        self.epochs = []

    def on_train_start(self, event):
        pass

    def on_train_epoch_end(self, event):
        self.epochs.append({"epoch": int(event.epoch), "loss": float(event.train_loss),
                            "components": {k: float(v) for k, v in dict(event.train_loss_items).items()},
                            "seconds": float(event.epoch_seconds)})
        print(json.dumps(self.epochs[-1]), flush=True)

    def on_train_end(self, event):
        pass

    def on_train_exception(self, event):
        pass


def main():
    out, family, size, coco128 = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
    overrides = dict(arg.split("=", 1) for arg in sys.argv[5:])
    overrides = {key: typed(value) for key, value in overrides.items()}
    import libreyolo
    model_class = {"yolo9": libreyolo.LibreYOLO9, "yolox": libreyolo.LibreYOLOX, "rtmdet": libreyolo.LibreRTMDet,
                   "rtdetr": libreyolo.LibreRTDETR, "dfine": libreyolo.LibreDFINE}[family]
    on_cpu = str(overrides.get("device", "0")) == "cpu"  # a smoke test without a GPU
    resume_from = overrides.pop("resume_from", None)
    model = model_class(resume_from, size=size, nb_classes=80, device="cpu" if on_cpu else "cuda")
    if resume_from is not None:
        overrides["resume"] = True
    recorder = EpochRecorder()
    # Each family's own precision: D-FINE's DFINEConfig trains in float32 (amp=False).
    settings = dict(batch=16, imgsz=640, device="0", workers=8, amp=family != "dfine", seed=0,
                    eval_interval=10**9, save_period=10**9, save_plots=False,
                    project=str(out / "runs"), name=f"{family}{size}", exist_ok=True)
    settings.update(overrides)
    start = time.time()
    model.train(data=str(write_data_yaml(coco128, out)), callbacks=recorder, **settings)
    result = {"family": family, "size": size, "settings": settings, "wall_seconds": round(time.time() - start, 1),
              "epochs": recorder.epochs}
    (out / "reference_train.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

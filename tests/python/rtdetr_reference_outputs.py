#!/usr/bin/env python3
"""Record LibreYOLO's RT-DETR (whole model + loss) on a deterministic input, for the C++ test
tests/unit/rtdetr/test_rtdetr_reference.cpp.

For each size given (default r18 and the parameter counts of all sizes) it writes
tests/fixtures/rtdetr/reference_outputs_<size>.json holding, with every state-dict tensor filled by
fill_deterministic(scale_matrices=True) and a small class count:
  - the parameter count of the model at nc=80 (sum of numel over parameters()), and of every size;
  - eval mode: pred_logits and pred_boxes of a deterministic 2-image batch;
  - train mode (BatchNorm batch statistics) with denoising OFF: every term of LibreYOLO's loss
    dict (RTDETRLoss: loss_vfl, loss_bbox, loss_giou, *_aux_i) and the matcher's indices for
    every matched set (last layer, earlier layers, encoder selection), scipy's solution;
  - train mode with denoising ON: the noise LibreYOLO's denoising group drew (recorded by
    wrapping torch.rand_like / torch.randint_like inside its module), and every loss term
    (including *_dn_i).

LibreYOLO's models/rtdetr modules import only torch, torchvision and scipy, so they are loaded
from the source tree without the package's __init__:

    PYTHONPATH= /usr/bin/python3 tests/python/rtdetr_reference_outputs.py --libreyolo .reference/libreyolo
"""

import argparse
import copy
import json
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deterministic_weights import fill_deterministic, pattern  # noqa: E402

IMGSZ = 160   # 20x20 + 10x10 + 5x5 = 525 encoder positions >= 300 queries
BATCH = 2
CLASSES = 4
# Per image: (class, cx, cy, w, h) normalised; image 1 has more boxes than image 0.
TARGETS = [
    [(1, 0.30, 0.40, 0.20, 0.30), (3, 0.70, 0.60, 0.25, 0.15)],
    [(0, 0.50, 0.50, 0.40, 0.40), (2, 0.20, 0.75, 0.10, 0.20), (1, 0.80, 0.20, 0.15, 0.10)],
]

SIZES = {  # LibreYOLO's RTDETR_CONFIGS, as RTDETRModel's arguments
    "r18": dict(backbone_depth=18, backbone_freeze_norm=False, hidden_dim=256, dim_feedforward=1024, expansion=0.5,
                num_decoder_layers=3, eval_idx=-1),
    "r34": dict(backbone_depth=34, backbone_freeze_norm=False, hidden_dim=256, dim_feedforward=1024, expansion=0.5,
                num_decoder_layers=4, eval_idx=-1),
    "r50": dict(backbone_depth=50, backbone_freeze_norm=True, hidden_dim=256, dim_feedforward=1024, expansion=1.0,
                num_decoder_layers=6, eval_idx=-1),
    "r50m": dict(backbone_depth=50, backbone_freeze_norm=True, hidden_dim=256, dim_feedforward=1024, expansion=0.5,
                 num_decoder_layers=6, eval_idx=2),
    "r101": dict(backbone_depth=101, backbone_freeze_norm=True, hidden_dim=384, dim_feedforward=2048, expansion=1.0,
                 num_decoder_layers=6, eval_idx=-1, decoder_dim_feedforward=1024),
    "l": dict(hgnetv2="L", hidden_dim=256, dim_feedforward=1024, expansion=1.0, num_decoder_layers=6, eval_idx=-1),
    "x": dict(hgnetv2="X", hidden_dim=384, dim_feedforward=2048, expansion=1.0, num_decoder_layers=6, eval_idx=-1,
              decoder_dim_feedforward=1024),
}


def load_modules(libreyolo_dir):
    for name, sub in (("libreyolo", ""), ("libreyolo.models", "models"), ("libreyolo.models.rtdetr", "models/rtdetr")):
        package = types.ModuleType(name)
        package.__path__ = [str(Path(libreyolo_dir) / sub)]
        sys.modules[name] = package
    import importlib
    return (importlib.import_module("libreyolo.models.rtdetr.nn"), importlib.import_module("libreyolo.models.rtdetr.loss"),
            importlib.import_module("libreyolo.models.rtdetr.denoising"), importlib.import_module("libreyolo.models.rtdetr.hgnetv2"))


def build(modules, size, nc):
    nn, _, _, hgnetv2 = modules
    cfg = dict(SIZES[size])
    kwargs = dict(num_classes=nc, backbone_freeze_at=0, backbone_pretrained=False, decoder_hidden_dim=256,
                  decoder_dim_feedforward=cfg.pop("decoder_dim_feedforward", 1024))
    arch = cfg.pop("hgnetv2", None)
    if arch:
        kwargs["backbone"] = hgnetv2.HGNetv2(name=arch, return_idx=[1, 2, 3], freeze_at=0, freeze_norm=True,
                                             pretrained=False)
    else:
        kwargs["backbone_depth"] = cfg.pop("backbone_depth")
        kwargs["backbone_freeze_norm"] = cfg.pop("backbone_freeze_norm")
    kwargs.update(cfg)
    return nn.RTDETRModel(**kwargs)


def images():
    return (0.5 + 0.5 * pattern(BATCH * 3 * IMGSZ * IMGSZ, 1000)).view(BATCH, 3, IMGSZ, IMGSZ)


def detr_targets():
    out = []
    for rows in TARGETS:
        t = torch.tensor(rows, dtype=torch.float32)
        out.append({"labels": t[:, 0].long(), "boxes": t[:, 1:5].contiguous()})
    return out


def values(t):
    return [round(v, 7) for v in t.detach().to(torch.float64).reshape(-1).tolist()]


class NoiseRecorder:
    """Wraps the denoising module's torch.rand_like / torch.randint_like, in LibreYOLO's call
    order (label flip draw, new labels, box sign bits, box magnitudes), recording each result."""

    def __init__(self, denoising):
        self.denoising = denoising
        self.drawn = []

    def __enter__(self):
        real = torch
        recorder = self

        class Proxy(types.ModuleType):
            def __getattr__(self, name):
                attr = getattr(real, name)
                if name in ("rand_like", "randint_like"):
                    def wrapped(*args, **kwargs):
                        result = attr(*args, **kwargs)
                        recorder.drawn.append(result.clone())
                        return result
                    return wrapped
                return attr

        self.denoising.torch = Proxy("torch")
        return self

    def __exit__(self, *exc):
        self.denoising.torch = torch


def train_pass(modules, model, criterion, dn):
    model = copy.deepcopy(model)
    model.train()
    model.decoder.num_denoising = 100 if dn else 0
    torch.manual_seed(7)
    with NoiseRecorder(modules[2]) as recorder:
        out = model(images(), targets=detr_targets())
    losses = criterion(out, detr_targets())
    entry = {"losses": {k: float(v) for k, v in losses.items() if k != "total_loss"},
             "total": float(losses["total_loss"])}
    if dn:
        label_u, new_label, sign_bits, box_u = recorder.drawn
        entry["noise"] = {"shape": list(label_u.shape), "label_uniform": values(label_u),
                          "new_label": [int(v) for v in new_label.reshape(-1).tolist()],
                          "box_sign": values(sign_bits * 2.0 - 1.0), "box_uniform": values(box_u)}
        entry["dn_num_group"] = out["dn_meta"]["dn_num_group"]
    else:
        sets = [{"pred_logits": out["pred_logits"], "pred_boxes": out["pred_boxes"]}] + out["aux_outputs"]
        entry["matches"] = []
        for s in sets:
            indices = criterion.matcher(s, detr_targets())
            entry["matches"].append([[i.tolist(), j.tolist()] for i, j in indices])
    return entry


def record(modules, size):
    _, loss, _, _ = modules
    counts = {s: sum(p.numel() for p in build(modules, s, 80).parameters()) for s in SIZES}
    torch.manual_seed(0)
    model = build(modules, size, CLASSES)
    fill_deterministic(model, scale_matrices=True)
    criterion = loss.RTDETRLoss(num_classes=CLASSES)
    model.eval()
    with torch.no_grad():
        out = model(images())
    return {
        "size": size, "imgsz": IMGSZ, "batch": BATCH, "num_classes": CLASSES, "targets": TARGETS,
        "parameters_nc80": counts, "torch": torch.__version__,
        "eval": {"pred_logits_shape": list(out["pred_logits"].shape), "pred_logits": values(out["pred_logits"]),
                 "pred_boxes": values(out["pred_boxes"])},
        "train_no_dn": train_pass(modules, model, criterion, dn=False),
        "train_dn": train_pass(modules, model, criterion, dn=True),
    }


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"))
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "rtdetr"))
    parser.add_argument("--sizes", nargs="+", default=["r18"])
    args = parser.parse_args()
    modules = load_modules(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        entry = record(modules, size)
        path = out / f"reference_outputs_{size}.json"
        path.write_text(json.dumps(entry, separators=(",", ":")) + "\n")
        print(f"{path}: parameters {entry['parameters_nc80']}, total loss no-dn {entry['train_no_dn']['total']:.6f}, "
              f"dn {entry['train_dn']['total']:.6f}")


if __name__ == "__main__":
    main()

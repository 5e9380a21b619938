#!/usr/bin/env python3
"""Record LibreYOLO's D-FINE network on a deterministic input, for the C++ test
tests/unit/dfine/test_dfine_reference.cpp.

For each size given (default n, s, x) it writes tests/fixtures/dfine/reference_outputs_<size>.json
holding, with every state-dict tensor filled by fill_deterministic(scale_matrices=True) except
the buffers and constant parameters that define the architecture (anchors, valid_mask,
num_points_scale, up, reg_scale: kept at their built values), a small class count and a
non-square input:
  - eval mode: pred_logits and pred_boxes of a 2-image batch, every value;
  - for n only (the others hold eval alone, to keep the files small; s adds three levels with
    3/6/3 points, x the decoder's input projection, frozen BatchNorm and reg_scale 8):
  - train mode (BatchNorm batch statistics) with denoising OFF: every decoder output the C++
    layout (plugins/dfine/decoder_outputs.hpp) holds, stacked over the layers as it stacks them:
    dec_logits, dec_boxes, dec_corners, dec_refs, pre_logits, pre_boxes, enc_logits, enc_boxes;
  - train mode with denoising ON: the noise LibreYOLO's denoising group drew (recorded by
    wrapping torch.rand_like / torch.randint_like inside its module, in its call order), the
    group count, and the same entries plus dn_logits, dn_boxes, dn_corners, dn_refs,
    dn_pre_logits, dn_pre_boxes.
Each training entry is its shape, sum, mean |x| and every stride-th value (stride odd, so the
samples cycle through the last dimension), which keeps the file under 1 MB.

LibreYOLO's models/dfine modules import only torch and torchvision here, so they are loaded
from the source tree without the package's __init__:

    PYTHONPATH= /usr/bin/python3 tests/python/dfine_reference_outputs.py --libreyolo .reference/libreyolo
"""

import argparse
import copy
import importlib
import json
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deterministic_weights import fill_deterministic, pattern  # noqa: E402

# Non-square, and large enough for 300 queries at n's strides 16 and 32: 14*18 + 7*9 = 315.
HEIGHT, WIDTH = 224, 288
BATCH = 2
CLASSES = 4
# Per image: (class, cx, cy, w, h) normalised; image 1 has more boxes than image 0.
TARGETS = [
    [(1, 0.30, 0.40, 0.20, 0.30), (3, 0.70, 0.60, 0.25, 0.15)],
    [(0, 0.50, 0.50, 0.40, 0.40), (2, 0.20, 0.75, 0.10, 0.20), (1, 0.80, 0.20, 0.15, 0.10)],
]
MAX_SAMPLES = 1200
TRAIN_SIZES = ("n",)
# State the architecture defines rather than learns: the fill would replace it with noise.
KEPT_SUFFIXES = ("anchors", "valid_mask", "num_points_scale", ".up", ".reg_scale")


def load_modules(libreyolo_dir):
    root = Path(libreyolo_dir)
    for name, path in (("libreyolo", root), ("libreyolo.models", root / "models"),
                       ("libreyolo.models.dfine", root / "models" / "dfine")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    return (importlib.import_module("libreyolo.models.dfine.nn"),
            importlib.import_module("libreyolo.models.dfine.denoising"))


def deterministic_model(nn, size):
    model = nn.LibreDFINEModel(size, nb_classes=CLASSES, eval_spatial_size=(HEIGHT, WIDTH))
    kept = {k: v.clone() for k, v in model.state_dict().items() if k.endswith(KEPT_SUFFIXES)}
    fill_deterministic(model, scale_matrices=True)
    with torch.no_grad():
        state = model.state_dict()
        for key, value in kept.items():
            state[key].copy_(value)
    return model


def images():
    return (0.5 + 0.5 * pattern(BATCH * 3 * HEIGHT * WIDTH, 1000)).view(BATCH, 3, HEIGHT, WIDTH)


def detr_targets():
    out = []
    for rows in TARGETS:
        t = torch.tensor(rows, dtype=torch.float32)
        out.append({"labels": t[:, 0].long(), "boxes": t[:, 1:5].contiguous()})
    return out


def values(t):
    return [round(v, 7) for v in t.detach().to(torch.float64).reshape(-1).tolist()]


def summarize(t):
    flat = t.detach().to(torch.float64).reshape(-1)
    stride = max(1, flat.numel() // MAX_SAMPLES) | 1
    return {"shape": list(t.shape), "sum": flat.sum().item(), "mean_abs": flat.abs().mean().item(),
            "stride": stride, "samples": [round(v, 6) for v in flat[::stride].tolist()]}


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


def layer_stack(final, aux, key):
    """LibreYOLO's final output and aux_outputs, stacked [L, ...] as the C++ layout holds them."""
    return torch.stack([a[key] for a in aux] + [final[key]])


def training_entries(out, dn):
    final = {"pred_logits": out["pred_logits"], "pred_boxes": out["pred_boxes"],
             "pred_corners": out["pred_corners"], "ref_points": out["ref_points"]}
    entries = {
        "dec_logits": layer_stack(final, out["aux_outputs"], "pred_logits"),
        "dec_boxes": layer_stack(final, out["aux_outputs"], "pred_boxes"),
        "dec_corners": layer_stack(final, out["aux_outputs"], "pred_corners"),
        "dec_refs": layer_stack(final, out["aux_outputs"], "ref_points"),
        "pre_logits": out["pre_outputs"]["pred_logits"],
        "pre_boxes": out["pre_outputs"]["pred_boxes"],
        "enc_logits": out["enc_aux_outputs"][0]["pred_logits"],
        "enc_boxes": out["enc_aux_outputs"][0]["pred_boxes"],
    }
    if dn:
        layers = out["dn_outputs"]
        entries.update({
            "dn_logits": torch.stack([a["pred_logits"] for a in layers]),
            "dn_boxes": torch.stack([a["pred_boxes"] for a in layers]),
            "dn_corners": torch.stack([a["pred_corners"] for a in layers]),
            "dn_refs": torch.stack([a["ref_points"] for a in layers]),
            "dn_pre_logits": out["dn_pre_outputs"]["pred_logits"],
            "dn_pre_boxes": out["dn_pre_outputs"]["pred_boxes"],
        })
    return {name: summarize(t) for name, t in entries.items()}


def train_pass(denoising, model, dn):
    model = copy.deepcopy(model)
    model.train()
    model.decoder.num_denoising = 100 if dn else 0
    torch.manual_seed(7)
    with NoiseRecorder(denoising) as recorder:
        out = model(images(), targets=detr_targets())
    entry = {"outputs": training_entries(out, dn)}
    if dn:
        label_u, new_label, sign_bits, box_u = recorder.drawn
        entry["noise"] = {"shape": list(label_u.shape), "label_uniform": values(label_u),
                          "new_label": [int(v) for v in new_label.reshape(-1).tolist()],
                          "box_sign": values(sign_bits * 2.0 - 1.0), "box_uniform": values(box_u)}
        entry["dn_num_group"] = out["dn_meta"]["dn_num_group"]
        entry["dn_positive_idx"] = [idx.tolist() for idx in out["dn_meta"]["dn_positive_idx"]]
    return entry


def record(modules, size):
    nn, denoising = modules
    torch.manual_seed(0)
    model = deterministic_model(nn, size)
    model.eval()
    with torch.no_grad():
        out = model(images())
    entry = {
        "size": size, "height": HEIGHT, "width": WIDTH, "batch": BATCH, "num_classes": CLASSES,
        "targets": TARGETS, "torch": torch.__version__,
        "eval": {"pred_logits_shape": list(out["pred_logits"].shape), "pred_logits": values(out["pred_logits"]),
                 "pred_boxes": values(out["pred_boxes"])},
    }
    if size in TRAIN_SIZES:
        entry["train_no_dn"] = train_pass(denoising, model, dn=False)
        entry["train_dn"] = train_pass(denoising, model, dn=True)
    return entry


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"))
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "dfine"))
    parser.add_argument("--sizes", nargs="+", default=["n", "s", "x"])
    args = parser.parse_args()
    modules = load_modules(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        entry = record(modules, size)
        path = out / f"reference_outputs_{size}.json"
        path.write_text(json.dumps(entry, separators=(",", ":")) + "\n")
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()

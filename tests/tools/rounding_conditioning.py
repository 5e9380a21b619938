#!/usr/bin/env python3
"""How much a whole network's training pass amplifies rounding, on the CPU (issue #21; written in
the thirty-fourth session for the GPU cases of tests/unit/sdk/rounding_against_float32.hpp).

The pass is the GPU cases' one: train-mode BatchNorm, batch 4 of torch.rand 3 x 256 x 256 images,
channels-last, the loss a fixed random linear function of the raw outputs. It runs in float64
(the reference), in float32, and in an emulated float16 autocast (float64 arithmetic with the
convolutions' inputs, weights and outputs, the BatchNorms' and SiLUs' outputs and all their
gradients rounded to float16; BatchNorm statistics stay precise), and prints each pass's per
tensor relative distance from float64 (largest difference over largest reference magnitude):
median, 90th percentile, worst tensors. The emulation reproduced the GPU's medians (YOLOv9-t 1.04
against 0.90 measured, YOLOX-s 0.078 against 0.061).

Uses LibreYOLO's own modules (LIBREYOLO_SOURCE, default .reference/libreyolo) with torch 1.13 or
later on the CPU. Usage:
  OMP_NUM_THREADS=2 python3 tests/tools/rounding_conditioning.py yolo9 [--gamma 0.1] [--batch 8]
      [--randn-images] [--w-scale 0.01] [--eval-bn] [--calibrate] [--mask box|cls] [--json OUT]
"""
import argparse
import importlib
import json
import os
import statistics
import sys
import time
import types
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

LIBREYOLO = os.environ.get("LIBREYOLO_SOURCE", str(Path(__file__).resolve().parents[2] / ".reference" / "libreyolo"))


def load_nn(family):
    package = types.ModuleType(f"libreyolo_{family}_reference")
    package.__path__ = [str(Path(LIBREYOLO) / "models" / family)]
    sys.modules[package.__name__] = package
    return importlib.import_module(package.__name__ + ".nn")


def build(family, size):
    nnmod = load_nn(family)
    torch.manual_seed(0)
    if family == "yolo9":
        m = nnmod.LibreYOLO9Model(config=size, nb_classes=80)
    else:
        m = nnmod.LibreYOLOXModel(config=size, nb_classes=80)
        # As our C++ YOLOX: BN eps 1e-3 / momentum 0.03 and the 1% prior biases at construction.
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.eps, mod.momentum = 1e-3, 0.03
        m.init_weights(0.01)
    return m


def outputs_of(model, images):
    out = model(images)
    if torch.is_tensor(out):
        return [out]
    return list(out)


# ---------------------------------------------------------------- float16 emulation
class Round16(torch.autograd.Function):
    """Identity that rounds its value (forward) and its gradient (backward) to float16."""

    @staticmethod
    def forward(ctx, x):
        return x.to(torch.float16).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        return g.to(torch.float16).to(g.dtype)


R = Round16.apply
EMULATE = {"on": False}
_conv_forward = nn.Conv2d._conv_forward
_bn_forward = nn.BatchNorm2d.forward
_silu_forward = nn.SiLU.forward


def conv_fwd(self, x, w, b):
    if not EMULATE["on"]:
        return _conv_forward(self, x, w, b)
    return R(_conv_forward(self, R(x), R(w), None if b is None else R(b)))


def bn_fwd(self, x):
    y = _bn_forward(self, x)
    return R(y) if EMULATE["on"] else y


def silu_fwd(self, x):
    y = _silu_forward(self, x)
    return R(y) if EMULATE["on"] else y


nn.Conv2d._conv_forward = conv_fwd
nn.BatchNorm2d.forward = bn_fwd
nn.SiLU.forward = silu_fwd


# ---------------------------------------------------------------- one pass
def training_pass(model, images, weights, dtype, emulate16=False, eval_bn=False, act_hooks=None):
    model = model.to(dtype)
    model.train()
    if eval_bn:
        for mod in model.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.eval()
    model.zero_grad(set_to_none=True)
    EMULATE["on"] = emulate16
    try:
        outs = outputs_of(model, images.to(dtype).contiguous(memory_format=torch.channels_last))
        loss = sum((o.to(dtype) * w.to(dtype)).sum() for o, w in zip(outs, weights))
        loss.backward()
    finally:
        EMULATE["on"] = False
    grads = {n: (p.grad.detach().double().clone() if p.grad is not None else None)
             for n, p in model.named_parameters()}
    return loss.item(), grads, [o.detach().double() for o in outs]


def relative_difference(got, want):
    scale = max(1e-30, want.abs().max().item())
    return (got.double() - want.double()).abs().max().item() / scale


def compare(ref, other):
    rows = []
    for name, g in ref.items():
        if g is None or g.abs().max().item() == 0:
            continue
        o = other[name]
        d = float("inf") if not torch.isfinite(o).all() else relative_difference(o, g)
        rows.append((name, d, g.abs().max().item()))
    return rows


def median(v):
    s = sorted(v)
    return s[len(s) // 2] if s else 0.0


def make_inputs(model, batch, randn_images, seed=1):
    g = torch.Generator().manual_seed(seed)
    images = (torch.randn if randn_images else torch.rand)(batch, 3, 256, 256, generator=g, dtype=torch.float64)
    with torch.no_grad():
        # Shapes only (the caller reloads the state the probe's BN statistics moved).
        model.train()
        shapes = [o.shape for o in outputs_of(model.double(), images[:2])]
    weights = [torch.randn((batch,) + tuple(s[1:]), generator=g, dtype=torch.float64) for s in shapes]
    return images, weights


def parse_arguments():
    ap = argparse.ArgumentParser()
    ap.add_argument("family")
    ap.add_argument("--size", default=None)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--randn-images", action="store_true")
    ap.add_argument("--w-scale", type=float, default=1.0)
    ap.add_argument("--eval-bn", action="store_true")
    ap.add_argument("--mask", default="all", help="all | box | cls: which output channels W weights (yolo9)")
    ap.add_argument("--passes", default="f32,e16", help="comma list of f32,e16,bf16")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--calibrate", action="store_true",
                    help="eval-mode BN whose running statistics are this batch's (one train forward, momentum 1)")
    ap.add_argument("--gamma", type=float, default=1.0, help="every BatchNorm weight set to this")
    ap.add_argument("--json", default=None)
    return ap.parse_args()


def calibrated_state(model, images):
    """Eval-mode BatchNorm statistics set to this batch's (one training forward at momentum 1)."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for m in bns:
        m.momentum = 1.0
    with torch.no_grad():
        model.double().train()
        outputs_of(model, images.contiguous(memory_format=torch.channels_last))
    for m in bns:
        m.momentum = 0.03
    return {k: v.clone() for k, v in model.state_dict().items()}


def prepared(a):
    """The model, its starting state, the images and the loss weights as the options say."""
    size = a.size or ("t" if a.family == "yolo9" else "s")
    model = build(a.family, size)
    if a.gamma != 1.0:
        with torch.no_grad():
            for mod in model.modules():
                if isinstance(mod, nn.BatchNorm2d):
                    mod.weight.fill_(a.gamma)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    images, weights = make_inputs(model, a.batch, a.randn_images)
    model.load_state_dict(state)
    weights = [w * a.w_scale for w in weights]
    if a.calibrate:
        state = calibrated_state(model, images)
        a.eval_bn = True
    if a.mask != "all" and a.family == "yolo9":
        for w in weights:
            if a.mask == "box":
                w[:, 64:] = 0
            else:
                w[:, :64] = 0
    return size, model, state, images, weights


def one_pass(a, p, model, images, weights):
    """Pass `p` (f32, e16 or bf16): its loss, gradients and unit roundoff."""
    if p == "f32":
        loss, got, _ = training_pass(model, images, weights, torch.float32, eval_bn=a.eval_bn)
        return loss, got, 2.0 ** -24
    if p == "e16":
        loss, got, _ = training_pass(model, images, weights, torch.float64, emulate16=True, eval_bn=a.eval_bn)
        return loss, got, 2.0 ** -11
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss, got, _ = training_pass(model, images, weights, torch.float32, eval_bn=a.eval_bn)
    return loss, got, 2.0 ** -8


def main():
    a = parse_arguments()
    size, model, state, images, weights = prepared(a)
    result = {"args": vars(a)}
    t = time.time()
    loss64, ref, _ = training_pass(model, images, weights, torch.float64, eval_bn=a.eval_bn)
    print(f"{a.family}-{size} float64 pass {time.time() - t:.1f}s loss {loss64:.6g}", flush=True)
    mags = sorted(((g.abs().max().item(), n) for n, g in ref.items() if g is not None), reverse=True)
    print("largest float64 |grad|:", ", ".join(f"{n} {m:.4g}" for m, n in mags[:5]))
    result["largest_grad"] = mags[:10]
    for p in a.passes.split(","):
        model.load_state_dict(state)
        t = time.time()
        loss, got, unit = one_pass(a, p, model, images, weights)
        rows = compare(ref, got)
        d = [r[1] for r in rows]
        med = median(d)
        nonfinite = sum(1 for x in d if x == float("inf"))
        print(f"  {p}: {time.time() - t:.1f}s loss rel {abs(loss - loss64) / abs(loss64):.3g}  tensors {len(d)}"
              f"  median {med:.3g} (x{med / unit:.3g} unit roundoff)  p90 {sorted(d)[int(0.9 * len(d))]:.3g}"
              f"  max {max(d):.3g}  nonfinite {nonfinite}", flush=True)
        for n, dd, m in sorted(rows, key=lambda r: -r[1])[:a.top]:
            print(f"      {n:55s} {dd:.3g}  |g|max {m:.4g}")
        result[p] = {"median": med, "unit": unit, "rows": rows, "loss_rel": abs(loss - loss64) / abs(loss64)}
    if a.json:
        Path(a.json).write_text(json.dumps(result))


if __name__ == "__main__":
    main()

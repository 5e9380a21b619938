#!/usr/bin/env python3
"""Dump LibreYOLO's RT-DETR backbones + HybridEncoder (and D-FINE's HGNetv2) layouts to JSON.

The C++ test tests/unit/rtdetr/test_rtdetr_backbones.cpp compares the C++ modules against
tests/fixtures/rtdetr/backbone_encoder_<size>.json (RT-DETR sizes r18 r34 r50 r50m r101 l x: a
module holding LibreYOLO's backbone as "backbone" and its HybridEncoder as "encoder", built as
RTDETRModel builds them) and dfine_backbone_<arch>.json (D-FINE's HGNetv2 B0 B2 B4 B5 as its
n/s, m, l, x sizes configure it):

  every state_dict key and shape in PyTorch's order; parameter counts (backbone and encoder
  apart); the names of the parameters with requires_grad=False (freeze_at);
  for a few sizes a deterministic forward in eval mode (fill_deterministic with
  scale_matrices=True: 2-D weights pattern / sqrt(fan_in)) on a small non-square batch: per output its
  shape, sum, mean |x| and every stride-th value, up to MAX_SAMPLES of them (files stay small;
  a wiring error changes all of them).

LibreYOLO's package __init__ needs more than torch, so the module files are loaded through bare
package modules. With LibreYOLO's source at <dir> (default: .reference/libreyolo of this repo):

    /usr/bin/python3 tests/python/rtdetr_reference_keys.py --libreyolo <dir>
"""

import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import torch

from deterministic_weights import fill_deterministic, pattern

RTDETR_SIZES = {
    # size: (backbone, freeze_norm, hidden_dim, dim_feedforward, expansion), from model.py's RTDETR_CONFIGS
    "r18": ((18, None), False, 256, 1024, 0.5),
    "r34": ((34, None), False, 256, 1024, 0.5),
    "r50": ((50, None), True, 256, 1024, 1.0),
    "r50m": ((50, None), True, 256, 1024, 0.5),
    "r101": ((101, None), True, 384, 2048, 1.0),
    "l": ((None, "L"), True, 256, 1024, 1.0),
    "x": ((None, "X"), True, 384, 2048, 1.0),
}
DFINE_ARCHS = {
    # arch: (use_lab, freeze_norm), from dfine/nn.py's SIZE_CONFIGS (n and s share B0)
    "B0": (True, False),
    "B2": (True, False),
    "B4": (False, True),
    "B5": (False, True),
}
FORWARD_RTDETR = ("r18", "r50", "l")
FORWARD_DFINE = ("B0",)
FORWARD_BATCH, FORWARD_H, FORWARD_W = 2, 64, 96  # non-square: the position embedding's x/y order matters
MAX_SAMPLES = 384  # per output: every stride-th value, stride = max(1, numel // MAX_SAMPLES)


def load_modules(libreyolo_dir):
    """LibreYOLO's rtdetr/{hgnetv2,nn}.py and dfine/backbone.py without running package __init__s."""
    root = Path(libreyolo_dir)
    for name, path in (("libreyolo", root), ("libreyolo.models", root / "models"),
                       ("libreyolo.models.rtdetr", root / "models" / "rtdetr"),
                       ("libreyolo.models.dfine", root / "models" / "dfine")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    return (importlib.import_module("libreyolo.models.rtdetr.nn"),
            importlib.import_module("libreyolo.models.rtdetr.hgnetv2"),
            importlib.import_module("libreyolo.models.dfine.backbone"))


class BackboneEncoder(torch.nn.Module):
    """The first two thirds of RTDETRModel: same attribute names, so the same keys."""

    def __init__(self, backbone, encoder):
        super().__init__()
        self.backbone = backbone
        self.encoder = encoder

    def forward(self, images):
        features = self.backbone(images)
        return features, self.encoder(features)


def build_rtdetr(nn, hgnetv2, size):
    (depth, arch), freeze_norm, hidden_dim, dim_feedforward, expansion = RTDETR_SIZES[size]
    if arch is None:
        backbone = nn.PResNet(depth=depth, variant="d", return_idx=[1, 2, 3], freeze_at=0,
                              freeze_norm=freeze_norm, pretrained=False)
    else:
        backbone = hgnetv2.HGNetv2(name=arch, return_idx=[1, 2, 3], freeze_at=0,
                                   freeze_norm=freeze_norm, pretrained=False)
    encoder = nn.HybridEncoder(in_channels=backbone.out_channels, hidden_dim=hidden_dim,
                               dim_feedforward=dim_feedforward, expansion=expansion, dropout=0.0)
    return BackboneEncoder(backbone, encoder)


def build_dfine(dfine, arch):
    use_lab, freeze_norm = DFINE_ARCHS[arch]
    return dfine.HGNetv2(name=arch, use_lab=use_lab, return_idx=(1, 2, 3), freeze_stem_only=True,
                         freeze_at=0, freeze_norm=freeze_norm)


def input_images():
    count = FORWARD_BATCH * 3 * FORWARD_H * FORWARD_W
    return (0.5 + 0.5 * pattern(count, 1000)).view(FORWARD_BATCH, 3, FORWARD_H, FORWARD_W)


def summarize(name, tensor):
    flat = tensor.detach().to(torch.float64).reshape(-1)
    stride = max(1, flat.numel() // MAX_SAMPLES)
    return {"name": name, "shape": list(tensor.shape), "sum": flat.sum().item(), "mean_abs": flat.abs().mean().item(),
            "stride": stride, "samples": [round(v, 6) for v in flat[::stride].tolist()]}


def deterministic_forward(model, with_encoder):
    fill_deterministic(model, scale_matrices=True)
    model.eval()
    with torch.no_grad():
        result = model(input_images())
    features, encoded = result if with_encoder else (result, [])
    outputs = [summarize(f"backbone{i}", t) for i, t in enumerate(features)]
    outputs += [summarize(f"encoder{i}", t) for i, t in enumerate(encoded)]
    return {"batch": FORWARD_BATCH, "height": FORWARD_H, "width": FORWARD_W, "outputs": outputs}


def describe(model, name, parts):
    state = model.state_dict()
    entry = {"name": name, "torch": torch.__version__, "state_dict_entries": len(state)}
    for part, module in parts.items():
        entry[part + "_parameters"] = sum(p.numel() for p in module.parameters())
    entry["frozen_parameters"] = [key for key, p in model.named_parameters() if not p.requires_grad]
    entry["state_dict"] = [[key, list(value.shape)] for key, value in state.items()]
    return entry


def write_entry(path, entry):
    with open(path, "w") as f:
        # One state-dict row (and one output) per line: readable diffs.
        f.write("{\n")
        for key, value in entry.items():
            if key in ("state_dict", "forward"):
                continue
            f.write(f"  {json.dumps(key)}: {json.dumps(value)},\n")
        if "forward" in entry:
            forward = entry["forward"]
            f.write('  "forward": {\n')
            for key in ("batch", "height", "width"):
                f.write(f"    {json.dumps(key)}: {json.dumps(forward[key])},\n")
            f.write('    "outputs": [\n')
            f.write(",\n".join(f"      {json.dumps(o)}" for o in forward["outputs"]))
            f.write("\n    ]\n  },\n")
        f.write('  "state_dict": [\n')
        f.write(",\n".join(f"    {json.dumps(row)}" for row in entry["state_dict"]))
        f.write("\n  ]\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"),
                        help="LibreYOLO's package folder (the one holding models/rtdetr/nn.py)")
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "rtdetr"))
    args = parser.parse_args()

    torch.manual_seed(0)
    nn, hgnetv2, dfine = load_modules(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in RTDETR_SIZES:
        model = build_rtdetr(nn, hgnetv2, size)
        entry = describe(model, size, {"backbone": model.backbone, "encoder": model.encoder})
        if size in FORWARD_RTDETR:
            entry["forward"] = deterministic_forward(model, with_encoder=True)
        write_entry(out / f"backbone_encoder_{size}.json", entry)
        print(f"{size}: {len(entry['state_dict'])} keys, backbone {entry['backbone_parameters']}, "
              f"encoder {entry['encoder_parameters']}")
    for arch in DFINE_ARCHS:
        model = build_dfine(dfine, arch)
        entry = describe(model, arch, {"backbone": model})
        if arch in FORWARD_DFINE:
            entry["forward"] = deterministic_forward(model, with_encoder=False)
        write_entry(out / f"dfine_backbone_{arch}.json", entry)
        print(f"{arch}: {len(entry['state_dict'])} keys, backbone {entry['backbone_parameters']}")


if __name__ == "__main__":
    main()

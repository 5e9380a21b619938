#!/usr/bin/env python3
"""Record LibreYOLO's D-FINE FDR primitives (models/dfine/fdr.py) on fixed inputs, for the SDK's
tests/unit/detr/test_fdr.cpp (sdk/include/libreyolo/sdk/detr/fdr.hpp).

Writes tests/fixtures/detr/fdr.json: weighting_function for D-FINE's two settings (reg_max 32
with reg_scale 4 and 8), Integral on fixed corner logits, distance2bbox, and bbox2distance
(bins and weights) for ground-truth boxes that fall inside, below and beyond W's range.
LibreYOLO's module is loaded from its source tree and only called.

    /usr/bin/python3 tests/python/dfine_fdr_reference.py --libreyolo <LibreYOLO's package folder>
"""

import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import torch

from deterministic_weights import pattern
from rtdetr_ops_parity import tensor_json, spread


def load_fdr(libreyolo_dir):
    root = Path(libreyolo_dir)
    for name, folder in (("libreyolo", root), ("libreyolo.models", root / "models"),
                         ("libreyolo.models.dfine", root / "models" / "dfine")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    return importlib.import_module("libreyolo.models.dfine.fdr")


def boxes_cxcywh(count, seed):
    centres = spread(count * 2, seed, 0.2, 0.8).reshape(count, 2)
    sizes = spread(count * 2, seed + 1, 0.05, 0.5).reshape(count, 2)
    return torch.cat([centres, sizes], 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--libreyolo", required=True)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "fixtures" / "detr" / "fdr.json"))
    args = parser.parse_args()
    fdr = load_fdr(args.libreyolo)
    reg_max = 32
    up = torch.tensor([0.5])
    result = {"reg_max": reg_max, "up": 0.5, "cases": []}
    for reg_scale_value in (4.0, 8.0):
        reg_scale = torch.tensor([reg_scale_value])
        project = fdr.weighting_function(reg_max, up, reg_scale)
        logits = pattern(3 * 4 * (reg_max + 1), 7).reshape(3, 4 * (reg_max + 1)) * 3.0
        integral = fdr.Integral(reg_max)(logits, project)
        reference = boxes_cxcywh(3, 11)
        boxes = fdr.distance2bbox(reference, integral, reg_scale)
        # Targets: near the references (inside W's range), and two far ones (beyond both ends).
        target_ref = boxes_cxcywh(6, 21)
        target = torch.cat([target_ref[:, :2] - target_ref[:, 2:] / 2, target_ref[:, :2] + target_ref[:, 2:] / 2], 1)
        target[4] = torch.tensor([0.499, 0.499, 0.501, 0.501])  # far inside its reference: below W(0)
        target[5] = torch.tensor([0.0, 0.0, 1.0, 1.0])          # around a tiny reference: past W(reg_max)
        points = boxes_cxcywh(6, 31)
        points[5] = torch.tensor([0.5, 0.5, 0.01, 0.01])
        bins, weight_right, weight_left = fdr.bbox2distance(points, target, reg_max, reg_scale, up)
        result["cases"].append({
            "reg_scale": reg_scale_value, "project": tensor_json(project), "logits": tensor_json(logits),
            "integral": tensor_json(integral), "reference": tensor_json(reference), "boxes": tensor_json(boxes),
            "points": tensor_json(points), "target": tensor_json(target), "bins": tensor_json(bins),
            "weight_right": tensor_json(weight_right), "weight_left": tensor_json(weight_left)})
    with open(args.out, "w") as f:
        json.dump(result, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()

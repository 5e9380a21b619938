#!/usr/bin/env python3
"""Dump LibreYOLO's D-FINE layouts (every size, nc=80) to JSON, for the C++ test
tests/unit/dfine/test_dfine_architecture.cpp.

For each size n s m l x it writes tests/fixtures/dfine/keys_<size>.json: every state_dict key
and shape in PyTorch's order (buffers included: anchors / valid_mask at eval_spatial_size
640 x 640, num_points_scale, and up / reg_scale listed under decoder and decoder.decoder as
LibreYOLO shares one nn.Parameter between the two), the parameter count (sum of numel over
parameters(), each tensor once) of the model and of backbone / encoder / decoder, and the names
of the parameters with requires_grad=False.

LibreYOLO's package __init__ needs more than torch, so the module files are loaded through bare
package modules. With LibreYOLO's source at <dir> (default: .reference/libreyolo of this repo):

    /usr/bin/python3 tests/python/dfine_reference_keys.py --libreyolo <dir>
"""

import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import torch

SIZES = ("n", "s", "m", "l", "x")


def load_dfine(libreyolo_dir):
    """LibreYOLO's models/dfine/nn.py without running the package __init__s."""
    root = Path(libreyolo_dir)
    for name, path in (("libreyolo", root), ("libreyolo.models", root / "models"),
                       ("libreyolo.models.dfine", root / "models" / "dfine")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    return importlib.import_module("libreyolo.models.dfine.nn")


def count(module):
    return sum(p.numel() for p in module.parameters())


def describe(model, size):
    state = model.state_dict()
    return {
        "size": size,
        "torch": torch.__version__,
        "parameters": count(model),
        "backbone_parameters": count(model.backbone),
        "encoder_parameters": count(model.encoder),
        "decoder_parameters": count(model.decoder),
        "state_dict_entries": len(state),
        "frozen_parameters": [key for key, p in model.named_parameters() if not p.requires_grad],
        "state_dict": [[key, list(value.shape)] for key, value in state.items()],
    }


def write_entry(path, entry):
    with open(path, "w") as f:
        f.write("{\n")
        for key, value in entry.items():
            if key != "state_dict":
                f.write(f"  {json.dumps(key)}: {json.dumps(value)},\n")
        # One state-dict row per line: readable diffs.
        f.write('  "state_dict": [\n')
        f.write(",\n".join(f"    {json.dumps(row)}" for row in entry["state_dict"]))
        f.write("\n  ]\n}\n")


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"),
                        help="LibreYOLO's package folder (the one holding models/dfine/nn.py)")
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "dfine"))
    args = parser.parse_args()

    torch.manual_seed(0)
    nn = load_dfine(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        entry = describe(nn.LibreDFINEModel(size, nb_classes=80, eval_spatial_size=(640, 640)), size)
        write_entry(out / f"keys_{size}.json", entry)
        print(f"{size}: {entry['state_dict_entries']} entries, {entry['parameters']} parameters "
              f"(backbone {entry['backbone_parameters']}, encoder {entry['encoder_parameters']}, "
              f"decoder {entry['decoder_parameters']})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Dump LibreYOLO's RTMDet state-dict layout, parameter count and a deterministic forward to JSON.

The C++ test tests/unit/rtmdet/test_rtmdet_architecture.cpp compares the C++ RTMDet against
tests/fixtures/rtmdet/reference_keys_<size>.json:

  every state_dict key and shape in PyTorch's order (the head's shared convolutions appear at all
  three levels, as PyTorch lists them), the number of state_dict entries, and the parameter
  count (sum of numel over model.parameters(), which visits a shared tensor once);
  for the small sizes (t, s) also the raw head outputs, every value, after filling all tensors
  with deterministic values (fill_deterministic; the C++ test does the same) and feeding a
  deterministic batch, in eval mode. That forward uses a model with few classes so the files
  stay small; the class count only changes the width of rtm_cls, not the wiring.

LibreYOLO's models/rtmdet/nn.py imports only torch, so it is loaded from the source tree without
importing the package (whose __init__ needs many more dependencies). With LibreYOLO's repository
at <repo>:

    mkdir -p /tmp/libreyolo && git -C <repo> archive HEAD libreyolo/models/rtmdet | tar -x -C /tmp/libreyolo
    python3 tests/python/rtmdet_reference_keys.py --libreyolo /tmp/libreyolo/libreyolo
"""

import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import torch

from deterministic_weights import fill_deterministic, pattern

FORWARD_IMGSZ = 64  # small: the forward check is about wiring, not about speed
FORWARD_BATCH = 2
FORWARD_CLASSES = 4
FORWARD_SIZES = ("t", "s")
OUTPUT_NAMES = ("cls_P3", "cls_P4", "cls_P5", "reg_P3", "reg_P4", "reg_P5")


def load_nn(libreyolo_dir):
    """LibreYOLO's models/rtmdet/nn.py as a module, without running the package's __init__."""
    package = types.ModuleType("libreyolo_rtmdet_reference")
    package.__path__ = [str(Path(libreyolo_dir) / "models" / "rtmdet")]
    sys.modules[package.__name__] = package
    return importlib.import_module(package.__name__ + ".nn")


def input_images(batch=FORWARD_BATCH, imgsz=FORWARD_IMGSZ):
    count = batch * 3 * imgsz * imgsz
    return (0.5 + 0.5 * pattern(count, 1000)).view(batch, 3, imgsz, imgsz)


def deterministic_forward(nn, size):
    """The six raw head outputs (cls logits per level, then reg = distances in pixels per level)."""
    model = nn.LibreRTMDetModel(size=size, nc=FORWARD_CLASSES)
    fill_deterministic(model)
    model.eval()
    with torch.no_grad():
        cls_scores, bbox_preds = model(input_images())
    outputs = []
    for name, tensor in zip(OUTPUT_NAMES, list(cls_scores) + list(bbox_preds)):
        values = tensor.detach().to(torch.float64).reshape(-1).tolist()
        outputs.append({"name": name, "shape": list(tensor.shape), "values": [round(v, 6) for v in values]})
    return {"imgsz": FORWARD_IMGSZ, "batch": FORWARD_BATCH, "num_classes": FORWARD_CLASSES, "outputs": outputs}


def dump_size(nn, size, num_classes):
    model = nn.LibreRTMDetModel(size=size, nc=num_classes)
    state = model.state_dict()
    entry = {
        "family": "rtmdet",
        "size": size,
        "num_classes": num_classes,
        "parameters": sum(p.numel() for p in model.parameters()),
        "state_dict_entries": len(state),
        "torch": torch.__version__,
        "state_dict": [[key, list(value.shape)] for key, value in state.items()],
    }
    if size in FORWARD_SIZES:
        entry["forward"] = deterministic_forward(nn, size)
    return entry


def write_keys(path, entry):
    with open(path, "w") as f:
        # One state-dict entry (and one output) per line: readable diffs, and easy to read back.
        f.write("{\n")
        for name in ("family", "size", "num_classes", "parameters", "state_dict_entries", "torch"):
            f.write(f"  {json.dumps(name)}: {json.dumps(entry[name])},\n")
        if "forward" in entry:
            forward = entry["forward"]
            f.write('  "forward": {\n')
            for name in ("imgsz", "batch", "num_classes"):
                f.write(f"    {json.dumps(name)}: {json.dumps(forward[name])},\n")
            f.write('    "outputs": [\n')
            f.write(",\n".join(f"      {json.dumps(output)}" for output in forward["outputs"]))
            f.write("\n    ]\n  },\n")
        f.write('  "state_dict": [\n')
        f.write(",\n".join(f"    {json.dumps(row)}" for row in entry["state_dict"]))
        f.write("\n  ]\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"),
                        help="LibreYOLO's package folder (the one holding models/rtmdet/nn.py)")
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "rtmdet"))
    parser.add_argument("--sizes", nargs="+", default=["t", "s", "m", "l", "x"])
    parser.add_argument("--num-classes", type=int, default=80)
    args = parser.parse_args()

    torch.manual_seed(0)
    nn = load_nn(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        entry = dump_size(nn, size, args.num_classes)
        path = out / f"reference_keys_{size}.json"
        write_keys(path, entry)
        print(f"{path}: {len(entry['state_dict'])} keys, {entry['parameters']} parameters")


if __name__ == "__main__":
    main()

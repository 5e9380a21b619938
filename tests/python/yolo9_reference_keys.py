#!/usr/bin/env python3
"""Dump LibreYOLO's YOLOv9 state-dict layout and a deterministic forward, per size, to JSON.

The C++ test tests/unit/yolo9/test_yolo9_architecture.cpp compares the C++ YOLOv9 against
these files (tests/fixtures/yolo9/reference_keys_<size>.json): every state_dict key and shape,
the parameter count, and the decoded output of both networks after filling every tensor with
the same deterministic values (see fill_deterministic; the C++ test does the same).

Run with torch and LibreYOLO importable:

    PYTHONPATH=/path/to/libreyolo python3 tests/python/yolo9_reference_keys.py

or with torch alone and LibreYOLO's nn.py extracted to a file (it imports only torch):

    git -C <libreyolo> show HEAD:libreyolo/models/yolo9/nn.py > /tmp/y9nn.py
    python3 tests/python/yolo9_reference_keys.py --nn-file /tmp/y9nn.py
"""

import argparse
import importlib.util
import json
from pathlib import Path

import torch

from deterministic_weights import fill_deterministic, pattern

FORWARD_IMGSZ = 64  # small: the forward check is about wiring, not about speed
FORWARD_BATCH = 2


def load_model_class(nn_file):
    if nn_file is None:
        from libreyolo.models.yolo9.nn import LibreYOLO9Model

        return LibreYOLO9Model
    spec = importlib.util.spec_from_file_location("libreyolo_yolo9_nn", nn_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LibreYOLO9Model


def input_images():
    count = FORWARD_BATCH * 3 * FORWARD_IMGSZ * FORWARD_IMGSZ
    return (0.5 + 0.5 * pattern(count, 1000)).view(FORWARD_BATCH, 3, FORWARD_IMGSZ, FORWARD_IMGSZ)


def summarize(tensor):
    flat = tensor.detach().to(torch.float64).reshape(-1)
    return {
        "shape": list(tensor.shape),
        "sum": flat.sum().item(),
        "abs_sum": flat.abs().sum().item(),
        "head": [round(v, 7) for v in flat[:32].tolist()],
    }


def dump(model_class, size, num_classes):
    model = model_class(config=size, nb_classes=num_classes)
    state = model.state_dict()
    entry = {
        "family": "yolo9",
        "size": size,
        "num_classes": num_classes,
        "parameters": sum(p.numel() for p in model.parameters()),
        "state_dict": [[key, list(value.shape)] for key, value in state.items()],
    }
    fill_deterministic(model)
    model.eval()
    with torch.no_grad():
        result = model(input_images())
    predictions = result["predictions"]  # [B, 4 + nc, N]: xyxy pixels, then sigmoid scores
    entry["forward"] = {
        "imgsz": FORWARD_IMGSZ,
        "batch": FORWARD_BATCH,
        "raw": [summarize(level) for level in result["raw_outputs"]],
        "boxes": summarize(predictions[:, :4].transpose(1, 2)),
        "scores": summarize(predictions[:, 4:].transpose(1, 2)),
    }
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nn-file", help="LibreYOLO's yolo9/nn.py as a file (else import libreyolo)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "fixtures" / "yolo9"))
    parser.add_argument("--sizes", nargs="+", default=["t", "s", "m", "c"])
    parser.add_argument("--num-classes", type=int, default=80)
    args = parser.parse_args()

    torch.manual_seed(0)
    model_class = load_model_class(args.nn_file)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        entry = dump(model_class, size, args.num_classes)
        entry["torch"] = torch.__version__
        path = out / f"reference_keys_{size}.json"
        with open(path, "w") as f:
            # One state-dict entry per line: readable diffs, and easy to read back.
            f.write("{\n")
            for name in ("family", "size", "num_classes", "parameters", "torch"):
                f.write(f"  {json.dumps(name)}: {json.dumps(entry[name])},\n")
            f.write(f'  "forward": {json.dumps(entry["forward"])},\n')
            f.write('  "state_dict": [\n')
            rows = [f"    {json.dumps(row)}" for row in entry["state_dict"]]
            f.write(",\n".join(rows))
            f.write("\n  ]\n}\n")
        print(f"{path}: {len(entry['state_dict'])} keys, {entry['parameters']} parameters")


if __name__ == "__main__":
    main()

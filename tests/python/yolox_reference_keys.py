#!/usr/bin/env python3
"""Dump LibreYOLO's YOLOX state-dict layout, a deterministic forward and its loss, to JSON.

The C++ tests in tests/unit/yolox/ compare the C++ YOLOX against these files:

  tests/fixtures/yolox/reference_keys_<size>.json  every state_dict key and shape (in order),
      the parameter count, and the outputs of both networks (raw and decoded) after filling
      every tensor with the same deterministic values (fill_deterministic; the C++ test does the
      same) and feeding the same deterministic images;
  tests/fixtures/yolox/reference_loss.json  LibreYOLO's YOLOXHead.get_losses and its SimOTA
      assignment (get_assignments) on crafted raw head outputs and targets (without and with the
      L1 term), and the training-mode loss of a whole yolox-n on deterministic weights.

LibreYOLO's models/yolox/nn.py and loss.py import only torch, so they are loaded from the source
tree without importing the rest of the package (whose __init__ needs many more dependencies):

    python3 tests/python/yolox_reference_keys.py --libreyolo .reference/libreyolo
"""

import argparse
import importlib
import json
import math
import sys
import types
from pathlib import Path

import torch

from deterministic_weights import fill_deterministic, pattern

FORWARD_IMGSZ = 64  # small: the forward check is about wiring, not about speed
FORWARD_BATCH = 2
STRIDES = (8, 16, 32)


def load_nn(libreyolo_dir):
    """LibreYOLO's models/yolox/nn.py as a module (its relative import of .loss resolves)."""
    package = types.ModuleType("libreyolo_yolox_reference")
    package.__path__ = [str(Path(libreyolo_dir) / "models" / "yolox")]
    sys.modules[package.__name__] = package
    return importlib.import_module(package.__name__ + ".nn")


def build_model(nn, size, num_classes):
    """LibreYOLOXModel as the LibreYOLOX wrapper builds it: BatchNorm eps 1e-3, momentum 0.03
    on every size (LibreYOLOX.__init__ sets them after construction)."""
    model = nn.LibreYOLOXModel(config=size, nb_classes=num_classes)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eps = 1e-3
            module.momentum = 0.03
    return model


def input_images(batch=FORWARD_BATCH, imgsz=FORWARD_IMGSZ):
    count = batch * 3 * imgsz * imgsz
    return (0.5 + 0.5 * pattern(count, 1000)).view(batch, 3, imgsz, imgsz)


def summarize(tensor):
    flat = tensor.detach().to(torch.float64).reshape(-1)
    return {
        "shape": list(tensor.shape),
        "sum": flat.sum().item(),
        "abs_sum": flat.abs().sum().item(),
        "head": [round(v, 7) for v in flat[:32].tolist()],
    }


def dump_size(nn, size, num_classes):
    model = build_model(nn, size, num_classes)
    state = model.state_dict()
    entry = {
        "family": "yolox",
        "size": size,
        "num_classes": num_classes,
        "parameters": sum(p.numel() for p in model.parameters()),
        "state_dict": [[key, list(value.shape)] for key, value in state.items()],
    }
    fill_deterministic(model)
    model.eval()
    with torch.no_grad():
        images = input_images()
        # Inference outputs per level: [B, 5 + nc, H, W] = reg raw, sigmoid(obj), sigmoid(cls).
        levels = model(images)
        # The head's export path decodes: [B, N, 5 + nc] = cx, cy, w, h (pixels), obj, cls.
        model.head.export = True
        decoded = model(images)
        model.head.export = False
    cx, cy, w, h = decoded[..., 0], decoded[..., 1], decoded[..., 2], decoded[..., 3]
    boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)
    scores = decoded[..., 4:5] * decoded[..., 5:]
    entry["forward"] = {
        "imgsz": FORWARD_IMGSZ,
        "batch": FORWARD_BATCH,
        "levels": [summarize(level) for level in levels],
        "boxes": summarize(boxes),
        "scores": summarize(scores),
    }
    return entry


# --- the loss ---------------------------------------------------------------------------------

LOSS_IMGSZ = 64
LOSS_CLASSES = 3
GRADIENT_KEYS = [
    "head.cls_preds.0.weight", "head.reg_preds.1.weight", "head.obj_preds.2.bias", "head.obj_preds.0.weight",
    "head.stems.2.bn.weight", "backbone.C3_n4.conv3.conv.weight", "backbone.lateral_conv0.bn.bias",
    "backbone.backbone.dark3.1.m.0.conv2.dconv.conv.weight", "backbone.backbone.stem.conv.conv.weight",
]


def crafted_raw_outputs(batch):
    """Raw head outputs per level [B, 5 + C, H, W] for a 64 x 64 input, from pattern():
    x, y offsets 0.5 +- 0.4 cells, w, h around 20 px (log(20 / stride) +- 0.5), logits +- 3.
    tests/unit/yolox/test_yolox_loss.cpp builds the same tensors."""
    outputs = []
    for level, stride in enumerate(STRIDES):
        side = LOSS_IMGSZ // stride
        base = pattern(batch * (5 + LOSS_CLASSES) * side * side, 2000 + level).view(batch, 5 + LOSS_CLASSES, side, side)
        raw = torch.empty_like(base)
        raw[:, 0:2] = 0.5 + 0.4 * base[:, 0:2]
        raw[:, 2:4] = math.log(20.0 / stride) + 0.5 * base[:, 2:4]
        raw[:, 4:] = 3.0 * base[:, 4:]
        outputs.append(raw)
    return outputs


# Padded targets [B, M, 5] = class, cx, cy, w, h in pixels. Image 0: two overlapping boxes and a
# small one (conflicts and dynamic k > 1); image 1: no boxes; image 2: one large box.
CRAFTED_TARGETS = [
    [[0, 24.0, 24.0, 20.0, 18.0], [2, 30.0, 28.0, 24.0, 22.0], [1, 50.0, 12.0, 8.0, 10.0]],
    [],
    [[1, 32.0, 36.0, 44.0, 40.0]],
]


def padded_targets(rows):
    width = max(1, max(len(r) for r in rows))
    labels = torch.zeros(len(rows), width, 5)
    for b, boxes in enumerate(rows):
        for m, box in enumerate(boxes):
            labels[b, m] = torch.tensor(box)
    return labels


def head_losses(head, raw_levels, labels, use_l1):
    """LibreYOLO's training path of YOLOXHead.forward from the raw per-level outputs on: its
    get_output_and_grid per level, then get_losses (this glue mirrors forward's loop)."""
    head.use_l1 = use_l1
    outputs, origin_preds, x_shifts, y_shifts, expanded_strides = [], [], [], [], []
    for k, (stride, raw) in enumerate(zip(STRIDES, raw_levels)):
        output, grid = head.get_output_and_grid(raw.clone(), k, stride, raw.type())
        x_shifts.append(grid[:, :, 0])
        y_shifts.append(grid[:, :, 1])
        expanded_strides.append(torch.zeros(1, grid.shape[1]).fill_(stride).type_as(raw))
        if use_l1:
            b, _, h, w = raw.shape
            origin_preds.append(raw[:, :4].permute(0, 2, 3, 1).reshape(b, h * w, 4).clone())
        outputs.append(output)
    losses = head.get_losses(None, x_shifts, y_shifts, expanded_strides, labels, torch.cat(outputs, 1),
                             origin_preds, dtype=raw_levels[0].dtype)
    assignments = []
    all_outputs = torch.cat(outputs, 1)
    for b in range(labels.shape[0]):
        num_gt = int((labels[b].sum(1) > 0).sum())
        if num_gt == 0:
            assignments.append({"foreground": [], "gt_index": [], "iou": []})
            continue
        classes, fg_mask, ious, matched, _ = head.get_assignments(
            b, num_gt, labels[b, :num_gt, 1:5], labels[b, :num_gt, 0], all_outputs[b, :, :4],
            torch.cat(expanded_strides, 1), torch.cat(x_shifts, 1), torch.cat(y_shifts, 1),
            all_outputs[:, :, 5:], all_outputs[:, :, 4:5])
        assignments.append({
            "foreground": fg_mask.nonzero().flatten().tolist(),
            "gt_index": matched.tolist(),
            "iou": [round(v, 7) for v in ious.tolist()],
        })
    values = {name: float(losses[name]) for name in ("total_loss", "iou_loss", "obj_loss", "cls_loss", "l1_loss")}
    values["num_fg"] = float(losses["num_fg"])
    return values, assignments


def dump_loss(nn):
    torch.manual_seed(0)
    head = nn.YOLOXHead(num_classes=LOSS_CLASSES, width=0.25)
    labels = padded_targets(CRAFTED_TARGETS)
    raw_levels = crafted_raw_outputs(len(CRAFTED_TARGETS))
    crafted = {"imgsz": LOSS_IMGSZ, "num_classes": LOSS_CLASSES, "targets": CRAFTED_TARGETS}
    for use_l1 in (False, True):
        with torch.no_grad():
            losses, assignments = head_losses(head, raw_levels, labels, use_l1)
        crafted["l1" if use_l1 else "no_l1"] = losses
        crafted["assignments"] = assignments

    # A whole yolox-n in training mode (BatchNorm on batch statistics) on deterministic weights.
    model = build_model(nn, "n", LOSS_CLASSES)
    fill_deterministic(model)
    model.train()
    images = input_images(len(CRAFTED_TARGETS), LOSS_IMGSZ) * 255.0
    network = {"size": "n", "imgsz": LOSS_IMGSZ, "num_classes": LOSS_CLASSES, "targets": CRAFTED_TARGETS,
               "input_scale": 255.0}
    for use_l1 in (False, True):
        model.head.use_l1 = use_l1
        with torch.no_grad():
            losses = model(images, labels)
        network["l1" if use_l1 else "no_l1"] = {
            name: float(losses[name]) for name in ("total_loss", "iou_loss", "obj_loss", "cls_loss", "l1_loss", "num_fg")}

    # The gradients of the whole network and loss (L1 on) after one backward, for a few tensors
    # from the head to the stem. (Comparing a run of SGD steps instead is hopeless: with these
    # weights a 1e-6 perturbation already changes the loss after two steps by percents.)
    model.head.use_l1 = True
    model.zero_grad()
    model(images, labels)["total_loss"].backward()
    parameters = dict(model.named_parameters())
    network["gradients"] = {name: summarize(parameters[name].grad) for name in GRADIENT_KEYS}
    return {"crafted": crafted, "network": network, "torch": torch.__version__}


def write_keys(path, entry):
    with open(path, "w") as f:
        # One state-dict entry per line: readable diffs, and easy to read back.
        f.write("{\n")
        for name in ("family", "size", "num_classes", "parameters", "torch"):
            f.write(f"  {json.dumps(name)}: {json.dumps(entry[name])},\n")
        f.write(f'  "forward": {json.dumps(entry["forward"])},\n')
        f.write('  "state_dict": [\n')
        f.write(",\n".join(f"    {json.dumps(row)}" for row in entry["state_dict"]))
        f.write("\n  ]\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"),
                        help="LibreYOLO's package folder (the one holding models/yolox/nn.py)")
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "yolox"))
    parser.add_argument("--sizes", nargs="+", default=["n", "t", "s", "m", "l", "x"])
    parser.add_argument("--num-classes", type=int, default=80)
    args = parser.parse_args()

    torch.manual_seed(0)
    nn = load_nn(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        entry = dump_size(nn, size, args.num_classes)
        entry["torch"] = torch.__version__
        path = out / f"reference_keys_{size}.json"
        write_keys(path, entry)
        print(f"{path}: {len(entry['state_dict'])} keys, {entry['parameters']} parameters")
    path = out / "reference_loss.json"
    with open(path, "w") as f:
        json.dump(dump_loss(nn), f, indent=1)
        f.write("\n")
    print(f"{path}: written")


if __name__ == "__main__":
    main()

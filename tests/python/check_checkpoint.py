#!/usr/bin/env python3
"""Cross-checks libreyolo-host checkpoints against real PyTorch (needs torch; LibreYOLO optional).

  check_checkpoint.py read  FILE.pt   load a host-written checkpoint with torch.load, print it,
                                      and check it against LibreYOLO's schema v1.0
  check_checkpoint.py write FILE.pt   write a checkpoint the way LibreYOLO's trainer does, for
                                      the host's load_checkpoint to read

Exit status 0 means every check passed. The schema checks below restate
libreyolo/utils/serialization.py:validate_checkpoint_metadata; when LibreYOLO is importable
its own validator runs as well.
"""
import collections
import sys

import torch

TASKS = {"detect", "segment", "semantic", "pose", "classify", "gaze", "obb", "point"}


def schema_errors(ckpt):
    errors = []
    for key in ("model", "schema_version", "libreyolo_version", "model_family", "size", "task",
                "nc", "names", "imgsz"):
        if key not in ckpt:
            errors.append(f"missing {key}")
    if ckpt.get("schema_version") != "1.0":
        errors.append(f"schema_version {ckpt.get('schema_version')!r}")
    for key in ("libreyolo_version", "model_family", "size"):
        if not (isinstance(ckpt.get(key), str) and ckpt.get(key)):
            errors.append(f"{key} not a non-empty str")
    if ckpt.get("task") not in TASKS:
        errors.append(f"task {ckpt.get('task')!r}")
    nc = ckpt.get("nc")
    if not (type(nc) is int and nc > 0):
        errors.append(f"nc {nc!r}")
    elif sorted(ckpt.get("names", {})) != list(range(nc)):
        errors.append("names keys are not 0..nc-1")
    if not (type(ckpt.get("imgsz")) is int and ckpt["imgsz"] > 0):
        errors.append(f"imgsz {ckpt.get('imgsz')!r}")
    for name, tensor in ckpt.get("model", {}).items():
        if not (isinstance(tensor, torch.Tensor) and tensor.device.type == "cpu" and tensor.is_contiguous()):
            errors.append(f"model[{name!r}] is not a contiguous CPU tensor")
    return errors


def read(path):
    # weights_only=True is how LibreYOLO loads user weights (load_untrusted_torch_file).
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    full = torch.load(path, map_location="cpu", weights_only=False)
    assert full.keys() == ckpt.keys(), "weights_only=False sees other keys"
    print("keys:", list(ckpt))
    for key in ckpt:
        if key not in ("model", "train_model", "ema", "host_train_state"):
            print(f"  {key} = {ckpt[key]!r}")
    for name, tensor in list(ckpt["model"].items()):
        print(f"  model[{name}] {tuple(tensor.shape)} {tensor.dtype} sum={tensor.double().sum().item():.6f}")
    host = ckpt.get("host_train_state")
    if host is not None:
        print("host_train_state keys:", list(host), "optimizer:", host["optimizer"]["name"],
              len(host["optimizer"]["state"]), "params")
    errors = schema_errors(ckpt)
    try:
        from libreyolo.utils.serialization import validate_checkpoint_metadata
        errors += validate_checkpoint_metadata(ckpt, strict=False)
    except ImportError:
        print("(LibreYOLO not installed: its validator was not run)")
    for error in errors:
        print("SCHEMA ERROR:", error)
    return 1 if errors else 0


def write(path):
    # A small model with the layers every family has, in PyTorch's state_dict form
    # (an OrderedDict carrying _metadata), plus LibreYOLO's training keys.
    torch.manual_seed(0)
    model = torch.nn.Sequential(collections.OrderedDict(
        conv=torch.nn.Conv2d(3, 4, 3, bias=False), bn=torch.nn.BatchNorm2d(4),
        act=torch.nn.SiLU(), pool=torch.nn.AdaptiveAvgPool2d(1), flat=torch.nn.Flatten(),
        head=torch.nn.Linear(4, 3)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model(torch.randn(2, 3, 8, 8)).sum().backward()
    optimizer.step()
    ckpt = {
        "model": model.state_dict(), "schema_version": "1.0", "libreyolo_version": "1.2.0",
        "model_family": "yolo9", "size": "t", "task": "detect", "nc": 3,
        "names": {0: "cat", 1: "dog", 2: "person"}, "imgsz": 640,
        "epoch": 4, "optimizer": optimizer.state_dict(),
        "config": {"epochs": 10, "lr0": 0.01, "amp": True, "data": None, "imgsz": [640, 640]},
        "loss": 1.25, "best_metric_key": "metrics/mAP50-95", "best_metric_value": 0.5,
        "best_epoch": 3, "is_ema_weights": False,
    }
    torch.save(ckpt, path)
    for name, tensor in ckpt["model"].items():
        print(f"  model[{name}] {tuple(tensor.shape)} {tensor.dtype} sum={tensor.double().sum().item():.6f}")
    print("wrote", path, "with torch", torch.__version__)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("read", "write"):
        sys.exit(__doc__)
    sys.exit({"read": read, "write": write}[sys.argv[1]](sys.argv[2]))

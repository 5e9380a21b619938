#!/usr/bin/env python3
# Usage: check_yolo9_checkpoint.py HOST_WRITTEN.pt LIBREYOLO_YOLO9_NN.py
#   (LIBREYOLO_YOLO9_NN.py: `git show HEAD:libreyolo/models/yolo9/nn.py` of LibreYOLO; needs torch)
# Loads a host-written YOLOv9 checkpoint with Python's torch.load, then loads its `model` state
# dict strictly into LibreYOLO's own LibreYOLO9Model of the same size (built from its nn.py).
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("y9", sys.argv[2]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
ckpt = torch.load(sys.argv[1], map_location="cpu", weights_only=False)  # torch 1.13 weights_only lacks BINFLOAT; 2.11 reads it
print({k: ckpt[k] for k in ("schema_version", "libreyolo_version", "model_family", "size", "task", "nc", "imgsz")})
model = m.LibreYOLO9Model(config=ckpt["size"], nb_classes=ckpt["nc"])
result = model.load_state_dict(ckpt["model"], strict=True)
print("strict load into LibreYOLO's LibreYOLO9Model:", result, "tensors:", len(ckpt["model"]),
      "params:", sum(p.numel() for p in model.parameters()))

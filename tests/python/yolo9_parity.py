#!/usr/bin/env python3
"""YOLOv9 parity between the host (C++/LibTorch) and LibreYOLO (the Python reference).

With the same weights and the same inputs it checks, in float32:
  (a) raw head outputs (BatchNorm in eval mode, and in train mode = batch statistics) and the
      decoded boxes/scores: max abs difference <= 1e-3;
  (b) the YOLOv9 loss (total, box, cls, dfl) on the same targets, BatchNorm in train mode as
      LibreYOLO's trainer computes it: relative difference <= 1e-3;
  (c) post-NMS predictions on the dataset's val images with the same conf/iou/max_det:
      LibreYOLO's public predict against the host's network + post-processing on the very
      same letterboxed pixels (same classes, boxes within 1 px, scores within 1e-3); plus two
      diagnostic rows: the host with best-class-per-anchor selection (what the host did before
      YOLOv9 declared multi-label post-processing), and the host end to end with its own
      validation preprocessing.
The host side is tests/tools/family_parity.cpp (target family_parity, with the yolo9 plugin);
the family-independent parts are in parity_common.py. See docs/parity.md. Run from the
repository root:

  PYTHONPATH=.reference python3 tests/python/yolo9_parity.py --host-tool build/bin/family_parity \
      --data "$COCO128" --size t --device cpu --out /tmp/parity

LibreYOLO is imported from PYTHONPATH at run time; nothing of it is copied here. On an old
PyTorch (Debian's 1.13) `import libreyolo` fails in families this script does not use; the
script then imports only LibreYOLO's YOLOv9 modules (parity_common.import_libreyolo) and says so.
"""

import copy
import sys
import types
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import parity_common as common  # noqa: E402


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------

def letterboxed_u8(lib, path, imgsz):
    """LibreYOLO predict's own preprocessing of one file (its preprocess_image: PIL decode,
    letterbox top-left, cv2 INTER_LINEAR, pad 114, / 255) -> (uint8 HWC, (w, h), float CHW)."""
    tensor, _, size = lib.preprocess_image(str(path), input_size=imgsz)
    chw = tensor[0]
    u8 = (chw * 255.0).round().clamp(0, 255).to(torch.uint8).permute(1, 2, 0).contiguous()
    assert torch.equal(u8.permute(2, 0, 1).float() / 255.0, chw), "preprocessing is not u8 / 255"
    return u8, size, chw


def build_batch(lib, paths, imgsz):
    """Images [B, 3, S, S] (LibreYOLO preprocessing) and targets in both conventions."""
    images, ref_targets, host_targets, used = [], [], [], []
    for path in paths:
        _, (width, height), chw = letterboxed_u8(lib, path, imgsz)
        ratio = min(imgsz / height, imgsz / width)
        rows = []
        for cls, cx, cy, w, h in common.label_rows(path):
            x1, y1 = (cx - w / 2) * width * ratio, (cy - h / 2) * height * ratio
            x2, y2 = (cx + w / 2) * width * ratio, (cy + h / 2) * height * ratio
            if x2 - x1 > 1 and y2 - y1 > 1:  # YOLO9TrainTransform drops boxes of 1 px or less
                rows.append([cls, x1 / imgsz, y1 / imgsz, x2 / imgsz, y2 / imgsz])
        images.append(chw)
        ref_targets.append(np.clip(np.array(rows, dtype=np.float32).reshape(-1, 5), [0, 0, 0, 0, 0],
                                   [1e9, 1, 1, 1, 1]).astype(np.float32))
        used.append(str(path))
    # LibreYOLO's trainer layout: [B, max_labels, 5] (class, x1, y1, x2, y2 normalised), padding
    # rows class -1 and zeros (YOLO9TrainTransform uses max_labels = 100).
    max_labels = 100
    ref = torch.zeros(len(paths), max_labels, 5)
    ref[:, :, 0] = -1
    counts = []
    for i, rows in enumerate(ref_targets):
        n = min(len(rows), max_labels)
        ref[i, :n] = torch.from_numpy(rows[:n])
        counts.append(n)
    # The host's layout: [B, M, 5] (class, cx, cy, w, h) in input pixels from the same float32
    # values LibreYOLO's loss scales (targets * [1, W, H, W, H]), padding zeros + counts.
    m = max(1, max(counts))
    host = torch.zeros(len(paths), m, 5)
    for i, n in enumerate(counts):
        pixels = ref[i, :n] * torch.tensor([1.0, imgsz, imgsz, imgsz, imgsz])
        host[i, :n, 0] = pixels[:, 0]
        host[i, :n, 1] = (pixels[:, 1] + pixels[:, 3]) / 2
        host[i, :n, 2] = (pixels[:, 2] + pixels[:, 4]) / 2
        host[i, :n, 3] = pixels[:, 3] - pixels[:, 1]
        host[i, :n, 4] = pixels[:, 4] - pixels[:, 2]
    return torch.stack(images), ref, host, torch.tensor(counts, dtype=torch.long), used


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------

def detect_size(state):
    """Size from the stem / first block widths (the facts LibreYOLO's detect_size reads)."""
    first = state["backbone.conv0.conv.weight"].shape[0]
    if first == 16:
        return "t"
    if first == 64:
        return "c"
    return "s" if state["backbone.elan1.cv1.conv.weight"].shape[0] == 64 else "m"


def prepare_weights(lib, args, out):
    """Path of the checkpoint both sides load, its metadata, and how it was made."""
    if args.weights:
        path = Path(args.weights)
        checkpoint, state = common.load_checkpoint(path)
        size = checkpoint.get("size") or detect_size(state)
        nc = int(checkpoint.get("nc") or state["head.cv3.0.2.weight"].shape[0])
        origin = f"given: {path}"
    else:
        # A random-init LibreYOLO YOLOv9, saved the way LibreYOLO's trainer wraps checkpoints.
        torch.manual_seed(args.seed)
        fresh = lib.LibreYOLO9(None, size=args.size, nb_classes=args.nc, device="cpu")
        state = fresh.model.state_dict()
        checkpoint = lib.wrap_libreyolo_checkpoint(
            state, model_family="yolo9", size=args.size, task="detect", nc=args.nc, imgsz=args.imgsz)
        path = out / f"random_yolo9{args.size}_seed{args.seed}.pt"
        torch.save(checkpoint, path)
        size, nc = args.size, args.nc
        origin = f"random init (torch.manual_seed({args.seed})), LibreYOLO9(None, size={size!r})"
    if args.size and size != args.size:
        print(f"note: --size {args.size} ignored, the checkpoint is yolo9{size}")
    return path, dict(state), size, nc, origin


def reference_model(lib, state, size, nc, device):
    """LibreYOLO's public wrapper over the given state dict (eval mode), checked tensor by tensor
    (LibreYOLO itself loads non-strictly)."""
    wrapper = lib.LibreYOLO9(dict(state), size=size, nb_classes=nc, device=device)
    common.check_loaded(wrapper.model, state)
    return wrapper


# --------------------------------------------------------------------------------------------
# (a) and (b)
# --------------------------------------------------------------------------------------------

def check_forward_and_loss(lib, args, wrapper, out, rows):
    paths = common.dataset_split(args.data, args.split)
    with_labels = [p for p in paths if common.label_rows(p)][: args.batch]
    images, ref_targets, host_targets, counts, used = build_batch(lib, with_labels, args.imgsz)
    device = torch.device(args.device)

    # LibreYOLO, eval mode: raw outputs and decoded predictions.
    model = wrapper.model
    train_model = copy.deepcopy(model)  # same weights and BatchNorm statistics, before any update
    model.eval()
    x = images.to(device)
    with torch.no_grad():
        result = model(x)
        raw_eval = [t.float().cpu() for t in result["raw_outputs"]]
        predictions = result["predictions"].float().cpu()  # [B, 4 + nc, N]
        loss_fn = model.head._get_loss_fn(x.device)
        loss_fn.update_anchors([x.shape[3], x.shape[2]])
        loss_eval = loss_fn([t.to(device) for t in raw_eval], ref_targets.to(device))
    # LibreYOLO, train mode (batch statistics), as its trainer calls it: model(imgs, targets).
    train_model.train()
    with torch.no_grad():
        raw_train = [t.float().cpu() for t in train_model(x)]
        loss_train = train_model(x, targets=ref_targets.to(device))

    seconds = {}
    names = {"total": "total_loss", "box": "box", "cls": "cls", "dfl": "dfl"}
    for suffix, layout, host, took in common.run_forward_layouts(args, out, images, host_targets, counts):
        seconds[layout] = took
        a, b = "a" + suffix, "b" + suffix
        common.compare_raw(rows, a, layout, "eval", raw_eval, host["raw_eval"])
        common.compare_raw(rows, a, layout, "train", raw_train, host["raw_train"])
        common.compare_decoded(rows, a + "-dec", layout, predictions[:, :4].transpose(1, 2),
                               predictions[:, 4:].transpose(1, 2), host)
        for mode, ref in (("train", loss_train), ("eval", loss_eval)):
            for ours, theirs in names.items():
                common.compare_loss(rows, b, f"loss {ours} (BN-{mode}) {layout}", host[f"loss_{mode}_{ours}"],
                                    ref[theirs])
    return {"images": used, "targets_per_image": counts.tolist(), "num_fg_ref_train": loss_train.get("num_fg"),
            "host_seconds": seconds}


# --------------------------------------------------------------------------------------------

def import_reference():
    notes = common.import_libreyolo("yolo9")
    from libreyolo.models.yolo9.model import LibreYOLO9
    from libreyolo.models.yolo9.utils import preprocess_image
    from libreyolo.utils.serialization import wrap_libreyolo_checkpoint

    return types.SimpleNamespace(LibreYOLO9=LibreYOLO9, preprocess_image=preprocess_image,
                                 wrap_libreyolo_checkpoint=wrap_libreyolo_checkpoint,
                                 origin=common.libreyolo_origin()), notes


def main():
    parser = common.make_parser(__doc__.split("\n")[0], "yolo9", "t")
    args = parser.parse_args()
    out = common.setup(args)
    lib, notes = import_reference()
    path, state, size, nc, origin = prepare_weights(lib, args, out)
    args.weights_path = path
    wrapper = reference_model(lib, state, size, nc, args.device)
    print(f"LibreYOLO from {lib.origin}; torch {torch.__version__}; device {args.device}")
    for note in notes:
        print(f"workaround: {note}")
    print(f"weights: yolo9{size} nc {nc} ({origin}) -> {path}")

    rows = []
    summary = common.base_summary(args, "yolo9", size, nc, path, origin, notes)
    summary["forward"] = check_forward_and_loss(lib, args, wrapper, out, rows)
    if not args.skip_predict:
        # Diagnostics: best-class-per-anchor selection (what the host did for YOLOv9 before
        # multi_label_nms), and the host end to end with its own validation preprocessing.
        summary["predict"] = common.check_predict(
            args, wrapper, out, rows, lambda p, imgsz: letterboxed_u8(lib, p, imgsz)[:2],
            [("best-class-per-anchor postprocess, LibreYOLO pixels", "ref_pixels", ["--best-class"]),
             ("host val preprocessing + postprocess", "paths", [])])
    return common.finish(rows, summary, out)


if __name__ == "__main__":
    sys.exit(main())

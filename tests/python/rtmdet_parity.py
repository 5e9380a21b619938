#!/usr/bin/env python3
"""RTMDet parity between the host (C++/LibTorch) and LibreYOLO (the Python reference).

With the same weights and the same inputs it checks, in float32:
  (a) raw head outputs per level: class logits [B, nc, H/s, W/s] and ltrb distances in input
      pixels [B, 4, H/s, W/s] (BatchNorm in eval mode, and in train mode = batch statistics),
      plus decoded boxes/scores as a diagnostic: max abs difference <= 1e-3;
  (b) the RTMDet loss (total, cls, bbox) on the same targets, LibreYOLO's RTMDetLoss as its
      trainer calls it (per-image xyxy boxes and labels from the padded targets): relative
      difference <= 1e-3. Both sides in float32, so the snapshot's fp16 overflow (fixed by
      LibreYOLO PR #568) does not arise;
  (c) post-NMS predictions on the dataset's val images: LibreYOLO's public predict against the
      host's network + post-processing on the very same letterboxed pixels.
The host side is tests/tools/family_parity.cpp (with the rtmdet plugin); the family-independent
parts are in parity_common.py. See docs/parity.md. From the repository root:

  PYTHONPATH=.reference python3 tests/python/rtmdet_parity.py --host-tool build/bin/family_parity \
      --data "$COCO128" --size t --device cpu --out /tmp/parity-rtmdet

LibreYOLO is imported from PYTHONPATH at run time; nothing of it is copied here.
"""

import copy
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import parity_common as common  # noqa: E402

MAX_LABELS = 120  # LibreYOLO's RTMDet trainer: TrainTransform(max_labels=120)
STRIDES = (8, 16, 32)
BGR_MEAN = torch.tensor([103.53, 116.28, 123.675]).view(3, 1, 1)
BGR_STD = torch.tensor([57.375, 57.12, 58.395]).view(3, 1, 1)


def letterboxed(lib, path, imgsz):
    """LibreYOLO predict's RTMDet preprocessing of one file -> (network input [3, S, S]
    normalised BGR, uint8 RGB HWC of the same pixels, (w, h))."""
    tensor, _, size, _ = lib.preprocess_image(str(path), input_size=imgsz)
    normalised = tensor[0].float()
    bgr = normalised * BGR_STD + BGR_MEAN
    u8 = bgr.flip(0).round().clamp(0, 255).to(torch.uint8).permute(1, 2, 0).contiguous()
    assert (u8.permute(2, 0, 1).flip(0).float() - bgr).abs().max() < 1e-3, "pixels are not integers before normalising"
    return normalised, u8, size


def prepare_weights(lib, args, out):
    """Path of the checkpoint both sides load, its state, size, class count and origin."""
    if args.weights:
        path = Path(args.weights)
        checkpoint, state = common.load_checkpoint(path)
        size = lib.LibreRTMDet.detect_size(state) or checkpoint.get("size")
        nc = int(checkpoint.get("nc") or lib.LibreRTMDet.detect_nb_classes(state))
        family = checkpoint.get("model_family")
        if family and family != "rtmdet":
            raise SystemExit(f"{path} is a {family} checkpoint, not rtmdet")
        origin = f"given: {path}"
    else:
        torch.manual_seed(args.seed)
        fresh = lib.LibreRTMDet(None, size=args.size, nb_classes=args.nc, device="cpu")
        state = fresh.model.state_dict()
        checkpoint = lib.wrap_libreyolo_checkpoint(
            state, model_family="rtmdet", size=args.size, task="detect", nc=args.nc, imgsz=args.imgsz)
        path = out / f"random_rtmdet{args.size}_seed{args.seed}.pt"
        torch.save(checkpoint, path)
        size, nc = args.size, args.nc
        origin = f"random init (torch.manual_seed({args.seed})), LibreRTMDet(None, size={size!r})"
    return path, dict(state), size, nc, origin


def reference_model(lib, state, size, nc, device):
    wrapper = lib.LibreRTMDet(None, size=size, nb_classes=nc, device=device)
    wrapper.model.load_state_dict(state, strict=False)
    wrapper.model.to(device)
    common.check_loaded(wrapper.model, state)
    return wrapper


def keep_level_top(scores, nms_pre):
    """Per image, the nms_pre highest (prior, class) scores of one level; the others 0: what
    LibreYOLO's postprocess keeps per level before NMS (its conf filter then top nms_pre)."""
    flat = scores.flatten(1)
    if flat.size(1) <= nms_pre:
        return scores
    kept = torch.zeros_like(flat)
    top = flat.topk(nms_pre, dim=1)
    kept.scatter_(1, top.indices, top.values)
    return kept.view_as(scores)


def reference_decode(lib, cls_levels, reg_levels, imgsz, nms_pre=30000):
    """Boxes [B, N, 4] (corner priors -/+ distances, clamped to the canvas, as LibreYOLO's
    postprocess does) and sigmoid scores [B, N, nc], the best nms_pre of each level kept."""
    priors = lib.make_grid_priors(list(cls_levels), list(STRIDES))
    distances = torch.cat([r.permute(0, 2, 3, 1).reshape(r.size(0), -1, 4) for r in reg_levels], 1)
    boxes = lib.distance2bbox(priors.unsqueeze(0), distances).clamp(0, imgsz)
    scores = torch.cat([keep_level_top(c.permute(0, 2, 3, 1).reshape(c.size(0), -1, c.size(1)).sigmoid(), nms_pre)
                        for c in cls_levels], 1)
    return boxes, scores


def reference_loss(lib, nc, cls_levels, reg_levels, targets):
    """LibreYOLO's RTMDetLoss, fed as RTMDetTrainer.on_forward feeds it."""
    boxes, labels = [], []
    for t in targets:
        t = t[(t[:, 3:5] > 0).all(1)]
        cx, cy, w, h = t[:, 1], t[:, 2], t[:, 3], t[:, 4]
        boxes.append(torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1))
        labels.append(t[:, 0].long())
    loss = lib.RTMDetLoss(num_classes=nc, strides=STRIDES)
    return loss(cls_levels, reg_levels, boxes, labels)


def check_forward_and_loss(lib, args, wrapper, nc, out, rows):
    paths = common.dataset_split(args.data, args.split)
    with_labels = [p for p in paths if common.label_rows(p)][: args.batch]
    images, ref_targets, host_targets, counts, used = common.padded_training_batch(
        lambda path, imgsz: letterboxed(lib, path, imgsz), with_labels, args.imgsz, MAX_LABELS)
    x = images.to(args.device)
    targets = ref_targets.to(args.device)
    model = wrapper.model
    losses = {}
    with torch.no_grad():
        model.eval()
        cls_eval, reg_eval = model(x)
        ref_boxes, ref_scores = reference_decode(lib, [c.cpu() for c in cls_eval], [r.cpu() for r in reg_eval],
                                                 args.imgsz)
        losses["eval"] = reference_loss(lib, nc, cls_eval, reg_eval, targets)
        train_model = copy.deepcopy(model).train()
        cls_train, reg_train = train_model(x)
        losses["train"] = reference_loss(lib, nc, cls_train, reg_train, targets)
    raw = {"eval": [t.float().cpu() for t in (*cls_eval, *reg_eval)],
           "train": [t.float().cpu() for t in (*cls_train, *reg_train)]}
    loss_names = {"total": "total_loss", "cls": "loss_cls", "bbox": "loss_bbox"}
    seconds = {}
    for suffix, layout, host, took in common.run_forward_layouts(args, out, images, host_targets, counts):
        seconds[layout] = took
        assert host["family"] == "rtmdet", f"the tool ran a {host['family']} model"
        a, b = "a" + suffix, "b" + suffix
        # The host lists the class logits of P3-P5, then their distances.
        names = [f"{kind} P{level + 3}" for kind in ("cls", "reg") for level in range(len(STRIDES))]
        common.compare_raw(rows, a, layout, "eval", raw["eval"], host["raw_eval"], names)
        common.compare_raw(rows, a, layout, "train", raw["train"], host["raw_train"], names)
        common.compare_decoded(rows, a + "-dec", layout, ref_boxes, ref_scores, host)
        for bn, ref in losses.items():
            for ours, theirs in loss_names.items():
                common.compare_loss(rows, b, f"loss {ours} (BN-{bn}) {layout}", host[f"loss_{bn}_{ours}"], ref[theirs])
    return {"images": used, "targets_per_image": counts.tolist(), "host_seconds": seconds}


def import_reference():
    notes = common.import_libreyolo("rtmdet")
    from libreyolo.models.rtmdet import loss as rtmdet_loss
    from libreyolo.models.rtmdet.model import LibreRTMDet
    from libreyolo.models.rtmdet.utils import _distance2bbox, _make_grid_priors, preprocess_image
    from libreyolo.utils.serialization import wrap_libreyolo_checkpoint

    return types.SimpleNamespace(LibreRTMDet=LibreRTMDet, preprocess_image=preprocess_image,
                                 make_grid_priors=_make_grid_priors, distance2bbox=_distance2bbox,
                                 RTMDetLoss=rtmdet_loss.RTMDetLoss, wrap_libreyolo_checkpoint=wrap_libreyolo_checkpoint,
                                 origin=common.libreyolo_origin()), notes


def main():
    parser = common.make_parser(__doc__.split("\n")[0], "rtmdet", "t")
    args = parser.parse_args()
    out = common.setup(args)
    lib, notes = import_reference()
    path, state, size, nc, origin = prepare_weights(lib, args, out)
    args.weights_path = path
    wrapper = reference_model(lib, state, size, nc, args.device)
    print(f"LibreYOLO from {lib.origin}; torch {torch.__version__}; device {args.device}")
    for note in notes:
        print(f"workaround: {note}")
    print(f"weights: rtmdet{size} nc {nc} ({origin}) -> {path}")
    rows = []
    summary = common.base_summary(args, "rtmdet", size, nc, path, origin, notes)
    summary["forward"] = check_forward_and_loss(lib, args, wrapper, nc, out, rows)
    if not args.skip_predict:
        summary["predict"] = common.check_predict(
            args, wrapper, out, rows, lambda p, imgsz: letterboxed(lib, p, imgsz)[1:],
            [("host val preprocessing + postprocess", "paths", [])])
    return common.finish(rows, summary, out)


if __name__ == "__main__":
    sys.exit(main())

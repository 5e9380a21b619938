#!/usr/bin/env python3
"""YOLOX parity between the host (C++/LibTorch) and LibreYOLO (the Python reference).

With the same weights and the same inputs it checks, in float32:
  (a) raw head outputs per level [B, 5 + nc, H/s, W/s] (reg, obj logit, class logits; BatchNorm
      in eval mode, and in train mode = batch statistics), plus the decoded boxes/scores as a
      diagnostic: max abs difference <= 1e-3;
  (b) the YOLOX loss (total, iou, obj, cls, l1) on the same targets, as LibreYOLO's trainer
      computes it (model(imgs, targets), BatchNorm in train mode), with the L1 term off
      (augmenting epochs) and on (the final no-augmentation epochs, head.use_l1 = True):
      relative difference <= 1e-3;
  (c) post-NMS predictions on the dataset's val images with the same conf/iou/max_det:
      LibreYOLO's public predict against the host's network + post-processing on the very
      same letterboxed pixels (same classes, boxes within 1 px, scores within 1e-3); plus a
      diagnostic row: the host end to end with its own validation preprocessing.
The host side is tests/tools/family_parity.cpp (target family_parity, with the yolox plugin);
the family-independent parts are in parity_common.py. See docs/parity.md. Run from the
repository root:

  PYTHONPATH=.reference python3 tests/python/yolox_parity.py --host-tool build/bin/family_parity \
      --data "$COCO128" --size s --device cpu --out /tmp/parity-x

LibreYOLO is imported from PYTHONPATH at run time; nothing of it is copied here. On an old
PyTorch (Debian's 1.13) `import libreyolo` fails in families this script does not use; the
script then imports only LibreYOLO's YOLOX modules (parity_common.import_libreyolo) and says so.
"""

import copy
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import parity_common as common  # noqa: E402

MAX_LABELS = 50  # LibreYOLO's YOLOX trainer: TrainTransform(max_labels=50)


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------

def letterboxed(lib, path, imgsz):
    """LibreYOLO predict's own YOLOX preprocessing of one file (its preprocess_image) ->
    (network input [3, S, S] float BGR 0-255, uint8 RGB HWC of the same pixels, (w, h))."""
    tensor, _, size, _ = lib.preprocess_image(str(path), input_size=imgsz)
    bgr = tensor[0].float()
    u8 = bgr.flip(0).round().clamp(0, 255).to(torch.uint8).permute(1, 2, 0).contiguous()
    assert torch.equal(u8.permute(2, 0, 1).flip(0).float(), bgr), "preprocessing is not integer BGR 0-255"
    return bgr, u8, size


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------

def prepare_weights(lib, args, out):
    """Path of the checkpoint both sides load, its metadata, and how it was made."""
    if args.weights:
        path = Path(args.weights)
        checkpoint, state = common.load_checkpoint(path)
        size = checkpoint.get("size") or lib.LibreYOLOX.detect_size(state)
        nc = int(checkpoint.get("nc") or lib.LibreYOLOX.detect_nb_classes(state))
        family = checkpoint.get("model_family")
        if family and family != "yolox":
            raise SystemExit(f"{path} is a {family} checkpoint, not yolox")
        origin = f"given: {path}"
    else:
        # A random-init LibreYOLO YOLOX, saved the way LibreYOLO's trainer wraps checkpoints
        # (with the prior-probability biases its trainer sets in on_setup).
        torch.manual_seed(args.seed)
        fresh = lib.LibreYOLOX(None, size=args.size, nb_classes=args.nc, device="cpu")
        fresh.model.head.initialize_biases(0.01)
        state = fresh.model.state_dict()
        checkpoint = lib.wrap_libreyolo_checkpoint(
            state, model_family="yolox", size=args.size, task="detect", nc=args.nc, imgsz=args.imgsz)
        path = out / f"random_yolox{args.size}_seed{args.seed}.pt"
        torch.save(checkpoint, path)
        size, nc = args.size, args.nc
        origin = f"random init (torch.manual_seed({args.seed})), LibreYOLOX(None, size={size!r})"
    if args.size and size != args.size:
        print(f"note: --size {args.size} ignored, the checkpoint is yolox{size}")
    return path, dict(state), size, nc, origin


def reference_model(lib, state, size, nc, device):
    """LibreYOLO's public wrapper over the given state dict (it sets BatchNorm eps 1e-3 and
    momentum 0.03 on every size), checked tensor by tensor."""
    wrapper = lib.LibreYOLOX(dict(state), size=size, nb_classes=nc, device=device)
    common.check_loaded(wrapper.model, state)
    return wrapper


# --------------------------------------------------------------------------------------------
# (a) and (b)
# --------------------------------------------------------------------------------------------

class RawOutputs:
    """Forward hooks on YOLOXHead's reg/obj/cls prediction convolutions: the raw per-level
    [B, 4 + 1 + nc, H, W] outputs (in eval mode LibreYOLO's head returns obj and cls after the
    sigmoid, in train mode it flattens and decodes; the host's raw outputs are the logits)."""

    def __init__(self, head):
        self.parts = {}
        self.handles = []
        for kind in ("reg", "obj", "cls"):
            for level, conv in enumerate(getattr(head, f"{kind}_preds")):
                self.handles.append(conv.register_forward_hook(self._hook(kind, level)))
        self.levels = len(head.cls_preds)

    def _hook(self, kind, level):
        def hook(module, inputs, output):
            self.parts[(kind, level)] = output.detach().float().cpu()
        return hook

    def take(self):
        raw = [torch.cat([self.parts[(k, level)] for k in ("reg", "obj", "cls")], 1) for level in range(self.levels)]
        self.parts = {}
        return raw

    def close(self):
        for handle in self.handles:
            handle.remove()


def loss_model(model, bn_train, use_l1):
    """A copy of `model` on LibreYOLO's training path (head.training, so model(x, targets) is
    get_losses), BatchNorm in train mode (batch statistics) or in eval mode (running statistics)."""
    copy_ = copy.deepcopy(model)
    copy_.train()
    if not bn_train:
        for module in copy_.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.eval()
    copy_.head.use_l1 = use_l1
    return copy_


def check_forward_and_loss(lib, args, wrapper, out, rows):
    paths = common.dataset_split(args.data, args.split)
    with_labels = [p for p in paths if common.label_rows(p)][: args.batch]
    images, ref_targets, host_targets, counts, used = common.padded_training_batch(
        lambda path, imgsz: letterboxed(lib, path, imgsz), with_labels, args.imgsz, MAX_LABELS)
    device = torch.device(args.device)
    x = images.to(device)
    targets = ref_targets.to(device)

    model = wrapper.model
    losses = {}
    with torch.no_grad():
        # Eval mode, as predict runs it: raw outputs and LibreYOLO's own decode.
        model.eval()
        hooks = RawOutputs(model.head)
        outputs = model(x)
        raw_eval = hooks.take()
        hooks.close()
        decoded = lib.decode_outputs([t.float().cpu().clone() for t in outputs])  # [B, N, 5 + nc]
        cx, cy, w, h = decoded[..., 0], decoded[..., 1], decoded[..., 2], decoded[..., 3]
        ref_boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)
        ref_scores = decoded[..., 4:5] * decoded[..., 5:]
        # Train mode (batch statistics): raw outputs, then the trainer's loss call.
        train_model = loss_model(model, bn_train=True, use_l1=False)
        hooks = RawOutputs(train_model.head)
        train_model(x)  # labels None: the flattened outputs; the hooks keep the raw ones
        raw_train = hooks.take()
        hooks.close()
        for bn in ("train", "eval"):
            for use_l1 in (False, True):
                losses[(bn, use_l1)] = loss_model(model, bn_train=bn == "train", use_l1=use_l1)(x, targets)

    seconds = {}
    names = {"total": "total_loss", "iou": "iou_loss", "obj": "obj_loss", "cls": "cls_loss", "l1": "l1_loss"}
    for suffix, layout, host, took in common.run_forward_layouts(args, out, images, host_targets, counts):
        seconds[layout] = took
        assert host["family"] == "yolox", f"the tool ran a {host['family']} model"
        a, b = "a" + suffix, "b" + suffix
        common.compare_raw(rows, a, layout, "eval", raw_eval, host["raw_eval"])
        common.compare_raw(rows, a, layout, "train", raw_train, host["raw_train"])
        common.compare_decoded(rows, a + "-dec", layout, ref_boxes, ref_scores, host)
        for (bn, use_l1), ref in losses.items():
            prefix = f"loss_noaug_{bn}_" if use_l1 else f"loss_{bn}_"
            for ours, theirs in names.items():
                if ours == "l1" and not use_l1:
                    continue  # 0 on both sides
                common.compare_loss(rows, b, f"loss {ours} (BN-{bn}, L1 {'on' if use_l1 else 'off'}) {layout}",
                                    host[prefix + ours], ref[theirs])
    return {"images": used, "targets_per_image": counts.tolist(),
            "num_fg_ref_train": float(losses[("train", False)]["num_fg"]), "host_seconds": seconds}


# --------------------------------------------------------------------------------------------

def import_reference():
    notes = common.import_libreyolo("yolox")
    from libreyolo.models.yolox.model import LibreYOLOX
    from libreyolo.models.yolox.utils import decode_outputs, preprocess_image
    from libreyolo.utils.serialization import wrap_libreyolo_checkpoint

    return types.SimpleNamespace(LibreYOLOX=LibreYOLOX, preprocess_image=preprocess_image,
                                 decode_outputs=decode_outputs, wrap_libreyolo_checkpoint=wrap_libreyolo_checkpoint,
                                 origin=common.libreyolo_origin()), notes


def main():
    parser = common.make_parser(__doc__.split("\n")[0], "yolox", "s")
    args = parser.parse_args()
    out = common.setup(args)
    lib, notes = import_reference()
    path, state, size, nc, origin = prepare_weights(lib, args, out)
    args.weights_path = path
    wrapper = reference_model(lib, state, size, nc, args.device)
    print(f"LibreYOLO from {lib.origin}; torch {torch.__version__}; device {args.device}")
    for note in notes:
        print(f"workaround: {note}")
    print(f"weights: yolox{size} nc {nc} ({origin}) -> {path}")

    rows = []
    summary = common.base_summary(args, "yolox", size, nc, path, origin, notes)
    summary["forward"] = check_forward_and_loss(lib, args, wrapper, out, rows)
    if not args.skip_predict:
        # Diagnostic: the host end to end with its own validation preprocessing (LibreYOLO's
        # YOLOX predict resizes with PIL bilinear, the host with its image cache + letterbox).
        summary["predict"] = common.check_predict(
            args, wrapper, out, rows, lambda p, imgsz: letterboxed(lib, p, imgsz)[1:],
            [("host val preprocessing + postprocess", "paths", [])])
    return common.finish(rows, summary, out)


if __name__ == "__main__":
    sys.exit(main())

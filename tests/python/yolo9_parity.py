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
See docs/parity.md. Run from the repository root:

  PYTHONPATH=.reference python3 tests/python/yolo9_parity.py --host-tool build/bin/yolo9_parity \
      --data ../shared/datasets/coco128 --size t --device cpu --out /tmp/parity

LibreYOLO is imported from PYTHONPATH at run time; nothing of it is copied here. On an old
PyTorch (Debian's 1.13) `import libreyolo` fails in families this script does not use; the
script then imports only LibreYOLO's YOLOv9 modules (see import_libreyolo) and says so.
"""

import argparse
import copy
import json
import math
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import torch

TOL_RAW = 1e-3      # (a) max abs
TOL_LOSS = 1e-3     # (b) relative
TOL_BOX_PX = 1.0    # (c) box corners, original pixels
TOL_SCORE = 1e-3    # (c) scores
TOL_DECODED_PX = 0.1  # decoded candidate boxes before NMS, input pixels (diagnostic)


# --------------------------------------------------------------------------------------------
# LibreYOLO import
# --------------------------------------------------------------------------------------------

def _stub_tqdm():
    """LibreYOLO's validators import tqdm at module level; a pass-through stands in if absent."""
    try:
        import tqdm  # noqa: F401
        return None
    except ImportError:
        pass

    class _Bar:
        def __init__(self, iterable=None, *args, **kwargs):
            self.iterable = iterable if iterable is not None else []

        def __iter__(self):
            return iter(self.iterable)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __getattr__(self, name):  # update, set_description, set_postfix, close, ...
            return lambda *args, **kwargs: None

    module = types.ModuleType("tqdm")
    module.tqdm = _Bar
    module.auto = module
    sys.modules["tqdm"] = module
    sys.modules["tqdm.auto"] = module
    return "tqdm (missing: pass-through stub)"


def import_libreyolo():
    """Returns (namespace of the LibreYOLO objects used, list of workarounds applied)."""
    notes = []
    stub = _stub_tqdm()
    if stub:
        notes.append(stub)
    try:
        import libreyolo  # noqa: F401
    except Exception as error:  # noqa: BLE001 - any failure in unrelated families
        # Old PyTorch/torchvision: other families need torch._dynamo, torchvision.tv_tensors,
        # torch.amp.GradScaler... Register bare package objects for `libreyolo` and
        # `libreyolo.models` (their __init__ imports every family) and import YOLOv9 directly.
        import importlib.util

        notes.append(f"import libreyolo failed ({type(error).__name__}: {error}); "
                     "imported libreyolo.models.yolo9 directly, skipping the package __init__s")
        for name in [n for n in sys.modules if n == "libreyolo" or n.startswith("libreyolo.")]:
            del sys.modules[name]
        spec = importlib.util.find_spec("libreyolo")
        if spec is None:
            raise SystemExit("LibreYOLO is not importable: run with PYTHONPATH=.reference")
        root = Path(spec.origin).parent
        for name, folder in (("libreyolo", root), ("libreyolo.models", root / "models")):
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            package.__file__ = str(folder / "__init__.py")
            sys.modules[name] = package
        import torch.amp

        if not hasattr(torch.amp, "GradScaler"):
            torch.amp.GradScaler = torch.cuda.amp.GradScaler
            notes.append("torch.amp.GradScaler aliased to torch.cuda.amp.GradScaler (unused here)")
    from libreyolo.models.yolo9.model import LibreYOLO9
    from libreyolo.models.yolo9.utils import preprocess_image
    from libreyolo.utils.serialization import wrap_libreyolo_checkpoint

    return types.SimpleNamespace(LibreYOLO9=LibreYOLO9, preprocess_image=preprocess_image,
                                 wrap_libreyolo_checkpoint=wrap_libreyolo_checkpoint,
                                 origin=str(Path(sys.modules["libreyolo"].__path__[0]))), notes


# --------------------------------------------------------------------------------------------
# Dataset
# --------------------------------------------------------------------------------------------

def dataset_split(data_dir, split):
    """Image paths of a YOLO-format split (data.yaml's `train` / `val`, else images/<split>*)."""
    data_dir = Path(data_dir)
    folder = None
    yaml_path = data_dir / "data.yaml"
    if yaml_path.exists():
        import yaml

        config = yaml.safe_load(yaml_path.read_text())
        if split in config:
            base = Path(config.get("path", "."))
            base = base if base.is_absolute() else data_dir / base
            folder = base / config[split]
    if folder is None:
        candidates = sorted((data_dir / "images").glob(split + "*"))
        if not candidates:
            raise SystemExit(f"no {split} images under {data_dir}")
        folder = candidates[0]
    paths = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not paths:
        raise SystemExit(f"no images in {folder}")
    return paths


def label_rows(image_path):
    """YOLO label rows (class, cx, cy, w, h normalised) of an image; [] without a label file."""
    parts = list(image_path.parts)
    index = len(parts) - 1 - parts[::-1].index("images")
    parts[index] = "labels"
    label = Path(*parts).with_suffix(".txt")
    if not label.exists():
        return []
    rows = []
    for line in label.read_text().split("\n"):
        values = line.split()
        if len(values) >= 5:
            rows.append([float(v) for v in values[:5]])
    return rows


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
        for cls, cx, cy, w, h in label_rows(path):
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
        checkpoint = torch.load(path, map_location="cpu", weights_only=False)  # a trusted file
        state = checkpoint["model"] if "model" in checkpoint else checkpoint
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
    loaded = wrapper.model.state_dict()
    missing = sorted(set(loaded) - set(state))
    unexpected = sorted(set(state) - set(loaded))
    different = [k for k in loaded if k in state and not torch.equal(loaded[k].cpu(), state[k].cpu())]
    if missing or unexpected or different:
        raise SystemExit(f"LibreYOLO did not load the weights exactly: missing {missing[:5]}, "
                         f"unexpected {unexpected[:5]}, different {different[:5]}")
    return wrapper


# --------------------------------------------------------------------------------------------
# Host tool
# --------------------------------------------------------------------------------------------

def run_tool(args, *tool_args):
    command = [args.host_tool, *map(str, tool_args), "--device", args.device]
    if args.allow_tf32:
        command.append("--allow-tf32")
    started = time.time()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"host tool failed ({result.returncode}): {' '.join(command)}")
    return time.time() - started


def load(path):
    return torch.load(path, map_location="cpu", weights_only=False)


# --------------------------------------------------------------------------------------------
# (a) and (b)
# --------------------------------------------------------------------------------------------

def max_abs(a, b):
    return (a.double() - b.double()).abs().max().item() if a.numel() else 0.0


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def check_forward_and_loss(lib, args, wrapper, out, rows):
    paths = dataset_split(args.data, args.split)
    with_labels = [p for p in paths if label_rows(p)][: args.batch]
    images, ref_targets, host_targets, counts, used = build_batch(lib, with_labels, args.imgsz)
    device = torch.device(args.device)
    torch.save({"images": images.contiguous(), "targets": host_targets.contiguous(), "counts": counts},
               out / "forward_in.pt")

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

    # The host's own input layout (channels-last, what to_network_input gives the trainer and
    # the validator) is what the verdict uses; NCHW-contiguous input (LibreYOLO's layout) is a
    # diagnostic row that isolates kernels whose result depends on the memory format.
    layouts = [("", "channels-last", []), ("-nchw", "NCHW", ["--contiguous"])]
    seconds = {}
    for suffix, layout, extra in layouts:
        outfile = out / f"forward_out{suffix or '_cl'}.pt"
        seconds[layout] = run_tool(args, "forward", "--weights", args.weights_path, "--input",
                                   out / "forward_in.pt", "--output", outfile, *extra)
        host = load(outfile)
        a, b = "a" + suffix, "b" + suffix
        for mode, ref_raw, host_raw in (("eval", raw_eval, host["raw_eval"]),
                                        ("train", raw_train, host["raw_train"])):
            for level, (r, h) in enumerate(zip(ref_raw, host_raw)):
                assert tuple(r.shape) == tuple(h.shape), f"shape {tuple(r.shape)} vs {tuple(h.shape)}"
                d = max_abs(h, r)
                rows.append((a, f"raw BN-{mode} P{level + 3} {list(r.shape)} {layout}", d, TOL_RAW,
                             d <= TOL_RAW, f"max |ref| {r.abs().max().item():.3g}"))
        # Decoded candidates: a diagnostic. A raw difference d moves a box side by up to about
        # d * reg_max * stride pixels, so boxes get TOL_DECODED_PX rather than 1e-3.
        d = max_abs(host["boxes_eval"], predictions[:, :4].transpose(1, 2))
        rows.append((a + "-dec", f"decoded boxes (BN-eval, input px) {layout}", d, TOL_DECODED_PX,
                     d <= TOL_DECODED_PX, ""))
        d = max_abs(host["scores_eval"], predictions[:, 4:].transpose(1, 2))
        rows.append((a + "-dec", f"decoded scores (BN-eval) {layout}", d, TOL_SCORE, d <= TOL_SCORE, ""))

        names = {"total": "total_loss", "box": "box", "cls": "cls", "dfl": "dfl"}
        for mode, ref in (("train", loss_train), ("eval", loss_eval)):
            for ours, theirs in names.items():
                r = float(ref[theirs])
                h = float(host[f"loss_{mode}_{ours}"])
                d = rel(h, r)
                rows.append((b, f"loss {ours} (BN-{mode}) {layout}", d, TOL_LOSS, d <= TOL_LOSS,
                             f"host {h:.6f} ref {r:.6f}"))
    return {"images": used, "targets_per_image": counts.tolist(), "num_fg_ref_train": loss_train.get("num_fg"),
            "host_seconds": seconds}


# --------------------------------------------------------------------------------------------
# (c)
# --------------------------------------------------------------------------------------------

def box_diff(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def match_image(ref, host, conf, max_det):
    """ref/host: lists of (x1, y1, x2, y2, score, cls). Greedy, ref by score: the host detection
    of the same class with the closest box. Unmatched detections whose score is within
    TOL_SCORE of conf (or of the max_det cut) are threshold effects, not failures."""
    used = [False] * len(host)
    stats = {"ref": len(ref), "host": len(host), "matched": 0, "max_box": 0.0, "max_score": 0.0,
             "unmatched_ref": 0, "unmatched_host": 0, "borderline": 0, "worst_pair": None}

    def cut(dets):
        return min(d[4] for d in dets) if len(dets) >= max_det else -1.0

    ref_cut, host_cut = cut(ref), cut(host)
    for r in sorted(ref, key=lambda d: -d[4]):
        best, best_diff = None, None
        for j, h in enumerate(host):
            if used[j] or int(h[5]) != int(r[5]):
                continue
            diff = box_diff(r[:4], h[:4])
            if best_diff is None or diff < best_diff:
                best, best_diff = j, diff
        if best is not None and best_diff <= TOL_BOX_PX and abs(host[best][4] - r[4]) <= TOL_SCORE:
            used[best] = True
            stats["matched"] += 1
            stats["max_box"] = max(stats["max_box"], best_diff)
            stats["max_score"] = max(stats["max_score"], abs(host[best][4] - r[4]))
        elif r[4] - conf <= TOL_SCORE or (host_cut >= 0 and r[4] - host_cut <= TOL_SCORE):
            stats["borderline"] += 1
        else:
            stats["unmatched_ref"] += 1
            if stats["worst_pair"] is None:
                stats["worst_pair"] = {"ref": [round(v, 4) for v in r],
                                       "host_closest": None if best is None else [round(v, 4) for v in host[best]]}
    for j, h in enumerate(host):
        if used[j]:
            continue
        if h[4] - conf <= TOL_SCORE or (ref_cut >= 0 and h[4] - ref_cut <= TOL_SCORE):
            stats["borderline"] += 1
        else:
            stats["unmatched_host"] += 1
    return stats


def split_rows(detections, counts):
    rows, start = [], 0
    for n in counts.tolist():
        rows.append(detections[start:start + n].tolist())
        start += n
    return rows


def summarize_matches(per_image):
    total = {k: 0 for k in ("ref", "host", "matched", "unmatched_ref", "unmatched_host", "borderline")}
    total.update(max_box=0.0, max_score=0.0, images_with_mismatch=0, example=None)
    for name, s in per_image:
        for k in ("ref", "host", "matched", "unmatched_ref", "unmatched_host", "borderline"):
            total[k] += s[k]
        total["max_box"] = max(total["max_box"], s["max_box"])
        total["max_score"] = max(total["max_score"], s["max_score"])
        if s["unmatched_ref"] or s["unmatched_host"]:
            total["images_with_mismatch"] += 1
            if total["example"] is None:
                total["example"] = {"image": name, **(s["worst_pair"] or {})}
    return total


def check_predict(lib, args, wrapper, out, rows):
    paths = dataset_split(args.data, args.split)[: args.predict_images or None]
    imgsz = args.predict_imgsz or args.imgsz
    started = time.time()
    results = wrapper.predict([str(p) for p in paths], conf=args.conf, iou=args.iou, imgsz=imgsz,
                              max_det=args.max_det, batch=1)
    ref_seconds = time.time() - started
    ref = []
    for result in results:
        b = result.boxes
        if b is None or len(b.xyxy) == 0:
            ref.append([])
            continue
        xyxy, score, cls = (torch.as_tensor(v).float().cpu() for v in (b.xyxy, b.conf, b.cls))
        ref.append(torch.cat([xyxy, score[:, None], cls[:, None]], 1).tolist())
    torch.save({"paths": [str(p) for p in paths], "detections": [torch.tensor(r).reshape(-1, 6) for r in ref]},
               out / "predict_ref.pt")

    # The host on LibreYOLO's own letterboxed pixels.
    u8, sizes = [], []
    for p in paths:
        image, size, _ = letterboxed_u8(lib, p, imgsz)
        u8.append(image)
        sizes.append(list(size))
    torch.save({"imgsz": imgsz, "images_u8": torch.stack(u8), "orig_sizes": torch.tensor(sizes)},
               out / "predict_in_ref_pixels.pt")
    torch.save({"imgsz": imgsz, "paths": [str(p.resolve()) for p in paths]}, out / "predict_in_paths.pt")
    thresholds = ["--conf", args.conf, "--iou", args.iou, "--max-det", args.max_det]
    variants = [
        ("c", "host postprocess, LibreYOLO pixels", "predict_in_ref_pixels.pt", []),
        ("c-diag", "best-class-per-anchor postprocess, LibreYOLO pixels", "predict_in_ref_pixels.pt", ["--best-class"]),
        ("c-diag", "host val preprocessing + postprocess", "predict_in_paths.pt", []),
    ]
    report = {"images": len(paths), "imgsz": imgsz, "conf": args.conf, "iou": args.iou, "max_det": args.max_det,
              "ref_detections": sum(len(r) for r in ref), "ref_seconds": ref_seconds, "variants": {}}
    for index, (key, label, infile, extra) in enumerate(variants):
        outfile = out / f"predict_out_{index}.pt"
        run_tool(args, "predict", "--weights", args.weights_path, "--input", out / infile, "--output", outfile,
                 *thresholds, *extra)
        host = load(outfile)
        host_rows = split_rows(host["detections"], host["counts"])
        per_image = [(p.name, match_image(r, h, args.conf, args.max_det)) for p, r, h in zip(paths, ref, host_rows)]
        total = summarize_matches(per_image)
        ok = total["unmatched_ref"] == 0 and total["unmatched_host"] == 0
        note = (f"ref {total['ref']} host {total['host']} matched {total['matched']} "
                f"unmatched ref/host {total['unmatched_ref']}/{total['unmatched_host']} "
                f"borderline {total['borderline']} max score diff {total['max_score']:.2e}")
        rows.append((key, label, total["max_box"], TOL_BOX_PX, ok, note))
        report["variants"][label] = total
        if "images_u8" in host:
            diff = (host["images_u8"].int() - torch.stack(u8).int()).abs()
            report["host_vs_libreyolo_pixels"] = {
                "max_abs": int(diff.max()), "mean_abs": float(diff.float().mean()),
                "fraction_differing": float((diff > 0).float().mean()),
                "images_identical": int(sum(bool((d == 0).all()) for d in diff)),
            }
    if report["ref_detections"] == 0:
        rows.append(("c", "WARNING: LibreYOLO found no detections: (c) is vacuous", 0.0, 0.0, True,
                     "use trained weights or a lower --conf"))
    return report


# --------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host-tool", default="build/bin/yolo9_parity")
    parser.add_argument("--data", required=True, help="YOLO dataset folder (coco128)")
    parser.add_argument("--split", default="val")
    parser.add_argument("--size", default="t", help="for random weights (a given checkpoint says its own)")
    parser.add_argument("--nc", type=int, default=80, help="classes of random weights")
    parser.add_argument("--weights", help="a LibreYOLO/host yolo9 .pt (default: random init, saved to --out)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu or cuda (both sides)")
    parser.add_argument("--allow-tf32", action="store_true", help="let both sides use TF32 on CUDA")
    parser.add_argument("--imgsz", type=int, default=640, help="input size of (a)/(b)")
    parser.add_argument("--batch", type=int, default=4, help="images in the (a)/(b) batch")
    parser.add_argument("--predict-imgsz", type=int, default=0, help="input size of (c) (default --imgsz)")
    parser.add_argument("--predict-images", type=int, default=0, help="first N val images for (c) (0: all)")
    parser.add_argument("--conf", type=float, default=0.25, help="(c) confidence threshold (predict's default)")
    parser.add_argument("--iou", type=float, default=0.45, help="(c) NMS IoU threshold (predict's default)")
    parser.add_argument("--max-det", type=int, default=300)
    parser.add_argument("--skip-predict", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tool = Path(args.host_tool)
    if not tool.exists() and (tool.parent.parent / "bin" / tool.name).exists():
        print(f"note: {tool} not found; using {tool.parent.parent / 'bin' / tool.name} (executables go to bin/)")
        tool = tool.parent.parent / "bin" / tool.name
    if not tool.exists():
        raise SystemExit(f"host tool {args.host_tool} not found (build the yolo9_parity target)")
    args.host_tool = str(tool)
    if args.device.startswith("cuda"):
        # PyTorch lets cuDNN convolutions use TF32 by default; the tool turns it off in LibTorch
        # too (--allow-tf32 turns it on on both sides).
        torch.backends.cudnn.allow_tf32 = args.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = args.allow_tf32
    lib, notes = import_libreyolo()
    path, state, size, nc, origin = prepare_weights(lib, args, out)
    args.weights_path = path
    wrapper = reference_model(lib, state, size, nc, args.device)
    print(f"LibreYOLO from {lib.origin}; torch {torch.__version__}; device {args.device}")
    for note in notes:
        print(f"workaround: {note}")
    print(f"weights: yolo9{size} nc {nc} ({origin}) -> {path}")

    rows = []
    summary = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "torch": torch.__version__, "device": args.device,
               "tf32": args.allow_tf32, "size": size, "nc": nc, "weights": str(path), "weights_origin": origin,
               "workarounds": notes, "bn_modes": "eval (running stats) and train (batch stats, as LibreYOLO's "
               "trainer computes the loss); both sides in float32"}
    summary["forward"] = check_forward_and_loss(lib, args, wrapper, out, rows)
    if not args.skip_predict:
        summary["predict"] = check_predict(lib, args, wrapper, out, rows)

    print(f"\n{'check':7} {'what':48} {'measured':>11} {'tolerance':>10}  result  notes")
    for key, what, measured, tol, ok, note in rows:
        print(f"{key:7} {what:48} {measured:11.3e} {tol:10.1e}  {'PASS' if ok else 'FAIL':6}  {note}")
    verdict = {k: all(ok for key, _, _, _, ok, _ in rows if key == k) for k in ("a", "b", "c") if
               any(key == k for key, *_ in rows)}
    summary["rows"] = [dict(zip(("check", "what", "measured", "tolerance", "pass", "notes"), r)) for r in rows]
    summary["verdict"] = verdict
    print("\nverdict: " + ", ".join(f"({k}) {'PASS' if v else 'FAIL'}" for k, v in verdict.items()))
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    print(f"summary: {out / 'summary.json'}")
    return 0 if all(verdict.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Family-independent parts of the parity procedure (docs/parity.md): LibreYOLO import on old
PyTorch, dataset reading, the host tool (tests/tools/family_parity.cpp) and its torch.save
interchange files, the comparison helpers, the matching of check (c), the PASS/FAIL table and
summary.json. The family scripts (yolo9_parity.py, yolox_parity.py) supply LibreYOLO's side.

LibreYOLO is imported from PYTHONPATH at run time; nothing of it is copied here.
"""

import argparse
import json
import subprocess
import sys
import time
import types
from pathlib import Path

import torch

TOL_RAW = 1e-3      # (a) max abs
TOL_LOSS = 1e-3     # (b) relative
TOL_BOX_PX = 1.0    # (c) box corners, original pixels
TOL_SCORE = 1e-3    # (c) scores
TOL_DECODED_PX = 0.1  # decoded candidate boxes before NMS, input pixels (diagnostic)

DEFAULT_TOOL = "build/bin/family_parity"


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


def import_libreyolo(family):
    """Makes LibreYOLO importable for `family` ("yolo9", "yolox"); returns the workarounds
    applied. On an old PyTorch (Debian's 1.13) `import libreyolo` fails in families not used
    here (torch._dynamo, torchvision.tv_tensors, torch.amp.GradScaler): bare package objects
    then stand in for `libreyolo` and `libreyolo.models` (whose __init__s import every family),
    so that only the modules the family imports are loaded."""
    notes = []
    stub = _stub_tqdm()
    if stub:
        notes.append(stub)
    try:
        import libreyolo  # noqa: F401
    except Exception as error:  # noqa: BLE001 - any failure in unrelated families
        import importlib.util

        notes.append(f"import libreyolo failed ({type(error).__name__}: {error}); "
                     f"imported libreyolo.models.{family} directly, skipping the package __init__s")
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
    return notes


def libreyolo_origin():
    return str(Path(sys.modules["libreyolo"].__path__[0]))


def check_loaded(model, state):
    """LibreYOLO loads non-strictly: check tensor by tensor that `model` holds exactly `state`."""
    loaded = model.state_dict()
    missing = sorted(set(loaded) - set(state))
    unexpected = sorted(set(state) - set(loaded))
    different = [k for k in loaded if k in state and not torch.equal(loaded[k].cpu(), state[k].cpu())]
    if missing or unexpected or different:
        raise SystemExit(f"LibreYOLO did not load the weights exactly: missing {missing[:5]}, "
                         f"unexpected {unexpected[:5]}, different {different[:5]}")


def load_checkpoint(path):
    """(checkpoint dict, state dict) of a LibreYOLO/host .pt (a trusted file)."""
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    state = checkpoint["model"] if "model" in checkpoint else checkpoint
    return checkpoint, state


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


def max_abs(a, b):
    return (a.double() - b.double()).abs().max().item() if a.numel() else 0.0


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


# The host's own input layout (channels-last, what to_network_input gives the trainer and the
# validator) is what the verdict uses; NCHW-contiguous input (LibreYOLO's layout) gives the
# "-nchw" rows, which isolate kernels whose result depends on the memory format.
LAYOUTS = [("", "channels-last", []), ("-nchw", "NCHW", ["--contiguous"])]


def padded_training_batch(letterboxed, paths, imgsz, max_labels):
    """The (a)/(b) batch of the YOLOX-style trainers (YOLOX, RTMDet): images [B, 3, S, S] from
    `letterboxed(path, imgsz)` -> (network input, _, (w, h)), the trainer's targets
    [B, max_labels, 5] (class, cx, cy, w, h in input pixels, zero padding; boxes whose shorter
    side is over 1 px, as TrainTransform keeps them) and, from the same float32 values, the host's
    sdk::Targets (the same layout padded to the largest count) + counts. Returns (images, ref
    targets, host targets, counts, paths used)."""
    images, rows_per_image, used = [], [], []
    for path in paths:
        x, _, (width, height) = letterboxed(path, imgsz)
        ratio = min(imgsz / height, imgsz / width)
        rows = []
        for cls, cx, cy, w, h in label_rows(path):
            box = [cx * width * ratio, cy * height * ratio, w * width * ratio, h * height * ratio]
            if min(box[2], box[3]) > 1:
                rows.append([cls, *box])
        images.append(x)
        rows_per_image.append(torch.tensor(rows, dtype=torch.float32).reshape(-1, 5))
        used.append(str(path))
    ref = torch.zeros(len(paths), max_labels, 5)
    counts = []
    for i, rows in enumerate(rows_per_image):
        n = min(len(rows), max_labels)
        ref[i, :n] = rows[:n]
        counts.append(n)
    host = ref[:, : max(1, max(counts))].clone()
    return torch.stack(images), ref, host, torch.tensor(counts, dtype=torch.long), used


def run_forward_layouts(args, out, images, host_targets, counts):
    """Writes forward_in.pt, runs the tool's forward in both layouts; yields (suffix, layout,
    host output dict, seconds)."""
    torch.save({"images": images.contiguous(), "targets": host_targets.contiguous(), "counts": counts},
               out / "forward_in.pt")
    for suffix, layout, extra in LAYOUTS:
        outfile = out / f"forward_out{suffix or '_cl'}.pt"
        seconds = run_tool(args, "forward", "--weights", args.weights_path, "--input", out / "forward_in.pt",
                           "--output", outfile, *extra)
        yield suffix, layout, load(outfile), seconds


def compare_raw(rows, key, layout, mode, ref_raw, host_raw, names=None):
    """`names`: one label per output tensor (default P3, P4, ...: one tensor per level)."""
    assert len(ref_raw) == len(host_raw), f"{len(ref_raw)} levels vs {len(host_raw)}"
    names = names or [f"P{level + 3}" for level in range(len(ref_raw))]
    for name, r, h in zip(names, ref_raw, host_raw):
        assert tuple(r.shape) == tuple(h.shape), f"shape {tuple(r.shape)} vs {tuple(h.shape)}"
        d = max_abs(h, r)
        rows.append((key, f"raw BN-{mode} {name} {list(r.shape)} {layout}", d, TOL_RAW, d <= TOL_RAW,
                     f"max |ref| {r.abs().max().item():.3g}"))


def compare_decoded(rows, key, layout, ref_boxes, ref_scores, host):
    """Decoded candidates: a diagnostic. A raw difference d moves a box side by d times a
    stride-sized factor, so boxes get TOL_DECODED_PX rather than 1e-3."""
    d = max_abs(host["boxes_eval"], ref_boxes)
    rows.append((key, f"decoded boxes (BN-eval, input px) {layout}", d, TOL_DECODED_PX, d <= TOL_DECODED_PX, ""))
    d = max_abs(host["scores_eval"], ref_scores)
    rows.append((key, f"decoded scores (BN-eval) {layout}", d, TOL_SCORE, d <= TOL_SCORE, ""))


def compare_loss(rows, key, label, host_value, ref_value):
    h, r = float(host_value), float(ref_value)
    d = rel(h, r)
    rows.append((key, label, d, TOL_LOSS, d <= TOL_LOSS, f"host {h:.6f} ref {r:.6f}"))


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


def reference_detections(wrapper, args, paths, imgsz):
    """LibreYOLO's public predict, one image at a time -> (per-image [x1, y1, x2, y2, score,
    class] lists, seconds)."""
    started = time.time()
    results = wrapper.predict([str(p) for p in paths], conf=args.conf, iou=args.iou, imgsz=imgsz,
                              max_det=args.max_det, batch=1)
    seconds = time.time() - started
    ref = []
    for result in results:
        b = result.boxes
        if b is None or len(b.xyxy) == 0:
            ref.append([])
            continue
        xyxy, score, cls = (torch.as_tensor(v).float().cpu() for v in (b.xyxy, b.conf, b.cls))
        ref.append(torch.cat([xyxy, score[:, None], cls[:, None]], 1).tolist())
    return ref, seconds


def check_predict(args, wrapper, out, rows, letterboxed_u8, diagnostics):
    """(c): LibreYOLO's predict against the host's network + post-processing on LibreYOLO's own
    letterboxed pixels (`letterboxed_u8(path, imgsz)` -> (uint8 RGB HWC, (w, h))), plus
    `diagnostics`: (label, input "ref_pixels" or "paths", extra tool flags) rows."""
    paths = dataset_split(args.data, args.split)[: args.predict_images or None]
    imgsz = args.predict_imgsz or args.imgsz
    ref, ref_seconds = reference_detections(wrapper, args, paths, imgsz)
    torch.save({"paths": [str(p) for p in paths], "detections": [torch.tensor(r).reshape(-1, 6) for r in ref]},
               out / "predict_ref.pt")

    u8, sizes = [], []
    for p in paths:
        image, size = letterboxed_u8(p, imgsz)
        u8.append(image)
        sizes.append(list(size))
    inputs = {"ref_pixels": "predict_in_ref_pixels.pt", "paths": "predict_in_paths.pt"}
    torch.save({"imgsz": imgsz, "images_u8": torch.stack(u8), "orig_sizes": torch.tensor(sizes)},
               out / inputs["ref_pixels"])
    torch.save({"imgsz": imgsz, "paths": [str(p.resolve()) for p in paths]}, out / inputs["paths"])
    thresholds = ["--conf", args.conf, "--iou", args.iou, "--max-det", args.max_det]
    variants = [("c", "host postprocess, LibreYOLO pixels", "ref_pixels", [])]
    variants += [("c-diag", label, source, extra) for label, source, extra in diagnostics]
    report = {"images": len(paths), "imgsz": imgsz, "conf": args.conf, "iou": args.iou, "max_det": args.max_det,
              "ref_detections": sum(len(r) for r in ref), "ref_seconds": ref_seconds, "variants": {}}
    for index, (key, label, source, extra) in enumerate(variants):
        outfile = out / f"predict_out_{index}.pt"
        run_tool(args, "predict", "--weights", args.weights_path, "--input", out / inputs[source], "--output",
                 outfile, *thresholds, *extra)
        host = load(outfile)
        host_rows = split_rows(host["detections"], host["counts"])
        per_image = [(p.name, match_image(r, h, args.conf, args.max_det)) for p, r, h in zip(paths, ref, host_rows)]
        total = summarize_matches(per_image)
        total["postprocess"] = host.get("postprocess")
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
# Command line, table, summary
# --------------------------------------------------------------------------------------------

def make_parser(description, family, default_size, default_batch=4):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host-tool", default=DEFAULT_TOOL)
    parser.add_argument("--data", required=True, help="YOLO dataset folder (coco128)")
    parser.add_argument("--split", default="val")
    parser.add_argument("--size", default=default_size, help="for random weights (a given checkpoint says its own)")
    parser.add_argument("--nc", type=int, default=80, help="classes of random weights")
    parser.add_argument("--weights", help=f"a LibreYOLO/host {family} .pt (default: random init, saved to --out)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu or cuda (both sides)")
    parser.add_argument("--allow-tf32", action="store_true", help="let both sides use TF32 on CUDA")
    parser.add_argument("--imgsz", type=int, default=640, help="input size of (a)/(b)")
    parser.add_argument("--batch", type=int, default=default_batch, help="images in the (a)/(b) batch")
    parser.add_argument("--predict-imgsz", type=int, default=0, help="input size of (c) (default --imgsz)")
    parser.add_argument("--predict-images", type=int, default=0, help="first N val images for (c) (0: all)")
    parser.add_argument("--conf", type=float, default=0.25, help="(c) confidence threshold (predict's default)")
    parser.add_argument("--iou", type=float, default=0.45, help="(c) NMS IoU threshold (predict's default)")
    parser.add_argument("--max-det", type=int, default=300)
    parser.add_argument("--skip-predict", action="store_true")
    parser.add_argument("--out", required=True)
    return parser


def setup(args):
    """Output folder, host tool path, TF32 switches. Returns the output folder."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tool = Path(args.host_tool)
    if not tool.exists() and (tool.parent.parent / "bin" / tool.name).exists():
        print(f"note: {tool} not found; using {tool.parent.parent / 'bin' / tool.name} (executables go to bin/)")
        tool = tool.parent.parent / "bin" / tool.name
    if not tool.exists():
        raise SystemExit(f"host tool {args.host_tool} not found (build the family_parity target and the "
                         "family plugins, e.g. ninja -C build family_parity libreyolo_family_yolo9 "
                         "libreyolo_family_yolox)")
    args.host_tool = str(tool)
    if args.device.startswith("cuda"):
        # PyTorch lets cuDNN convolutions use TF32 by default; the tool turns it off in LibTorch
        # too (--allow-tf32 turns it on on both sides).
        torch.backends.cudnn.allow_tf32 = args.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = args.allow_tf32
    return out


def base_summary(args, family, size, nc, path, origin, notes):
    return {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "torch": torch.__version__, "device": args.device,
            "tf32": args.allow_tf32, "family": family, "size": size, "nc": nc, "weights": str(path),
            "weights_origin": origin, "workarounds": notes,
            "bn_modes": "eval (running stats) and train (batch stats, as LibreYOLO's trainer computes the "
                        "loss); both sides in float32"}


def finish(rows, summary, out):
    """Prints the table and the verdict, writes summary.json; returns the exit code."""
    print(f"\n{'check':7} {'what':52} {'measured':>11} {'tolerance':>10}  result  notes")
    for key, what, measured, tol, ok, note in rows:
        print(f"{key:7} {what:52} {measured:11.3e} {tol:10.1e}  {'PASS' if ok else 'FAIL':6}  {note}")
    verdict = {k: all(ok for key, _, _, _, ok, _ in rows if key == k) for k in ("a", "b", "c") if
               any(key == k for key, *_ in rows)}
    summary["rows"] = [dict(zip(("check", "what", "measured", "tolerance", "pass", "notes"), r)) for r in rows]
    summary["verdict"] = verdict
    print("\nverdict: " + ", ".join(f"({k}) {'PASS' if v else 'FAIL'}" for k, v in verdict.items()))
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    print(f"summary: {out / 'summary.json'}")
    return 0 if all(verdict.values()) else 1

#!/usr/bin/env python3
"""learning_pairs.py on made-up logs whose answer is known: the paired difference, its standard
error, a later log replacing an earlier one, a pair of different epochs left out, no pair at all."""
import contextlib
import io
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import learning_pairs  # noqa: E402


def write_log(folder, setting, seed, epochs_and_maps):
    lines = ["starting", "epoch 1/200: loss 12.0"]
    for epoch, map50, map95 in epochs_and_maps:
        lines.append(f"epoch {epoch}/200: loss 3.1 mAP50 {map50} mAP50-95 {map95}")
    (folder / f"memorise_{setting}_{seed}.log").write_text("\n".join(lines) + "\n")


def run(*paths):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = learning_pairs.main(["learning_pairs.py", *map(str, paths)])
    return code, out.getvalue()


def expect(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        first, second = Path(tmp, "call1"), Path(tmp, "call2")
        first.mkdir(), second.mkdir()
        # Seeds 0-2: the candidate 0.02, 0.04 and 0.00 above plain at epoch 200.
        for seed, plain, cand in [(0, 0.80, 0.82), (1, 0.70, 0.74), (2, 0.90, 0.90)]:
            write_log(first, "plain", seed, [(100, 0.5, 0.3), (200, plain, 0.6)])
            write_log(first, "cand", seed, [(100, 0.5, 0.3), (200, cand, 0.6)])
        # Seed 3: the candidate stopped at epoch 120; its pair must be left out, not read as -0.3.
        write_log(second, "plain", 3, [(200, 0.85, 0.6)])
        write_log(second, "cand", 3, [(100, 0.50, 0.3), (120, 0.55, 0.3)])
        code, text = run(first, second)
        expect(code == 0, f"exit code {code} with pairs present:\n{text}")
        expect("(3 seeds)" in text, f"three comparable seeds expected:\n{text}")
        expect("seed 3: left out" in text and "candidate 120" in text, f"the early stop is named:\n{text}")
        differences = [0.02, 0.04, 0.0]
        mean = sum(differences) / 3
        error = math.sqrt(sum((d - mean) ** 2 for d in differences) / 2 / 3)
        expect(f"paired difference {mean:+.3f} (standard error {error:.3f})" in text,
               f"paired difference {mean:+.3f} (error {error:.3f}) expected:\n{text}")
        expect(f"{100 * mean / 0.8:+.1f}% of plain" in text, f"relative difference expected:\n{text}")
        # A later call's log of the same run replaces the earlier one (folders in the order given).
        write_log(second, "cand", 2, [(200, 0.96, 0.6)])
        code, text = run(first, second)
        expect("| 2 | 0.900 / 0.600 | 0.960 / 0.600 | +0.060 |" in text, f"the later log wins:\n{text}")
        code, text = run(second / "memorise_plain_3.log")
        expect(code == 1 and "no pair found" in text, f"no pair: exit 1 and a message:\n{text}")
    print("learning_pairs: ok")


if __name__ == "__main__":
    main()

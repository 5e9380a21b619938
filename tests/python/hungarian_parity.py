"""Counts how often the SDK's Hungarian solver gives scipy's exact assignment: random float32
matrices (uniform, RT-DETR-like costs, tall, wide, small integers with ties) go through
scipy.optimize.linear_sum_assignment and through build/bin/hungarian_check.

    /usr/bin/python3 tests/python/hungarian_parity.py [HUNGARIAN_CHECK] [COUNT=1200] [SEED=1]

Prints the number of identical assignments, of different assignments with the same optimal
total (only possible with tied optima), and of worse ones (a bug); exits 1 on any worse one
or on a differing assignment whose optimum is unique."""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hungarian_cases as cases  # noqa: E402


def random_case(rng):
    kind = rng.integers(0, 5)
    if kind == 0:
        return cases.uniform(rng, int(rng.integers(1, 40)), int(rng.integers(1, 40)))
    if kind == 1:
        return cases.detr_like(rng, int(rng.integers(20, 301)), int(rng.integers(1, 60)))
    if kind == 2:
        return cases.uniform(rng, int(rng.integers(50, 301)), int(rng.integers(1, 10)))
    if kind == 3:
        return cases.uniform(rng, int(rng.integers(1, 10)), int(rng.integers(10, 80)))
    return cases.integers(rng, int(rng.integers(1, 12)), int(rng.integers(1, 12)), high=int(rng.integers(2, 20)))


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "bin", "hungarian_check")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1200
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    matrices = [random_case(rng) for _ in range(count)]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(f"{count}\n")
        for m in matrices:
            # %.9g reads back as the same float32 (asserted below for safety).
            text = " ".join("%.9g" % float(x) for x in m.ravel())
            assert np.array_equal(np.array(text.split(), dtype=np.float64).astype(np.float32), m.ravel())
            f.write(f"{m.shape[0]} {m.shape[1]}\n{text}\n")
        path = f.name
    try:
        out = subprocess.run([tool, path], check=True, capture_output=True, text=True).stdout.splitlines()
    finally:
        os.unlink(path)
    identical = same_total = worse = unique_differs = 0
    if len(out) != count:
        print(f"hungarian parity: the tool printed {len(out)} lines for {count} matrices")
        return 1
    for m, line in zip(matrices, out):
        ours = np.array([int(v) for v in line.split()], dtype=np.int64)
        theirs, total = cases.scipy_assignment(m)
        if np.array_equal(ours, theirs):
            identical += 1
            continue
        rows = np.nonzero(ours >= 0)[0]
        our_total = float(m.astype(np.float64)[rows, ours[rows]].sum())
        if abs(our_total - total) <= 1e-9 * max(1.0, abs(total)):
            same_total += 1
            unique_differs += cases.optimum_is_unique(m)
        else:
            worse += 1
    print(f"hungarian parity: {count} matrices: {identical} identical to scipy, "
          f"{same_total} different with the same optimal total ({unique_differs} of them with a unique optimum), "
          f"{worse} worse")
    return 1 if worse or unique_differs else 0


if __name__ == "__main__":
    sys.exit(main())

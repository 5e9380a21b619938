#!/usr/bin/env python3
"""Summarises paired learning checks: runs of `train` with and without a candidate, per seed.

`.gpu/common.sh`'s `memorise_pairs` leaves one log per run, named memorise_<setting>_<seed>.log
(`plain` is the default `fused_kernels=measured`). Calls add seeds over several sessions, so this
reads any number of folders, takes each run's last validation (mAP50 and mAP50-95), and per
candidate prints every seed side by side, both means, the mean of the paired differences and
their standard error. Why paired and several seeds: two runs of the same code and seed differ by
several percent at the end of YOLOv9-t's 200-epoch memorisation (its curve is still rising, and
when a run leaves the early plateau shifts the whole curve), so one pair cannot show "within 2%".

Usage: learning_pairs.py FOLDER_OR_LOG...   (exit 1 if no pair is found)
"""
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

VALIDATION = re.compile(r"^epoch (\d+)/\d+: .*mAP50 ([0-9.]+) mAP50-95 ([0-9.]+)")
LOG_NAME = re.compile(r"^memorise_(.+)_(\d+)\.log$")


def last_validation(log):
    """(epoch, mAP50, mAP50-95) of the log's last validation, or None."""
    last = None
    for line in log.read_text(errors="replace").splitlines():
        match = VALIDATION.match(line)
        if match:
            last = (int(match.group(1)), float(match.group(2)), float(match.group(3)))
    return last


def collect(paths):
    """{setting: {seed: (epoch, mAP50, mAP50-95)}}; a later log of the same run replaces an earlier."""
    runs = defaultdict(dict)
    for path in map(Path, paths):
        logs = sorted(path.glob("memorise_*.log")) if path.is_dir() else [path]
        for log in logs:
            name = LOG_NAME.match(log.name)
            result = last_validation(log) if name else None
            if result:
                runs[name.group(1)][int(name.group(2))] = result
    return runs


def mean_and_error(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def comparable_seeds(candidate, plain, runs):
    """Seeds with both runs, whose last validations are of the same epoch; the others are named.

    A run that stopped early (a crash, a call's deadline) ends at an earlier epoch than its pair,
    and at YOLOv9-t's still-rising curve an earlier epoch reads as a worse candidate."""
    seeds = []
    for seed in sorted(set(plain) & set(runs)):
        if plain[seed][0] == runs[seed][0]:
            seeds.append(seed)
        else:
            print(f"{candidate}, seed {seed}: left out, its last validations are of different epochs "
                  f"(plain {plain[seed][0]}, candidate {runs[seed][0]}): did one run stop early?")
    return seeds


def report(candidate, plain, runs):
    seeds = comparable_seeds(candidate, plain, runs)
    if not seeds:
        return False
    print(f"## {candidate} against plain ({len(seeds)} seeds)\n")
    print("| seed | plain mAP50 / 50-95 | candidate mAP50 / 50-95 | difference (mAP50) |")
    print("|---:|---|---|---:|")
    for seed in seeds:
        (_, p50, p95), (_, c50, c95) = plain[seed], runs[seed]
        print(f"| {seed} | {p50:.3f} / {p95:.3f} | {c50:.3f} / {c95:.3f} | {c50 - p50:+.3f} |")
    plain_mean, _ = mean_and_error([plain[s][1] for s in seeds])
    cand_mean, _ = mean_and_error([runs[s][1] for s in seeds])
    diff, error = mean_and_error([runs[s][1] - plain[s][1] for s in seeds])
    relative = diff / plain_mean if plain_mean else float("nan")
    print(f"\nmeans: plain {plain_mean:.3f}, candidate {cand_mean:.3f}; paired difference "
          f"{diff:+.3f} (standard error {error:.3f}), {100 * relative:+.1f}% of plain\n")
    return True


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip())
        return 2
    runs = collect(argv[1:])
    plain = runs.pop("plain", {})
    found = [report(name, plain, runs[name]) for name in sorted(runs)]
    if not any(found):
        print("no pair found: expected memorise_plain_<seed>.log beside memorise_<candidate>_<seed>.log")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env bash
# `help train` fits the terminal: long types and meanings (fused_kernels' is a paragraph) wrap
# within $COLUMNS when the width cannot be asked of the terminal (ctest's output is no terminal);
# at 80 columns the meanings go below their rows.
set -euo pipefail
host=$1
for columns in 100 80; do
  out=$(COLUMNS=$columns "$host" help train 2>/dev/null </dev/null)
  longest=$(awk '{ if (length > n) n = length } END { print n }' <<<"$out")
  if [ "$longest" -gt "$columns" ]; then
    echo "FAILED: help train printed a line of $longest characters at COLUMNS=$columns" >&2
    awk -v c="$columns" 'length > c' <<<"$out" | head -3 >&2
    exit 1
  fi
  grep -Eq '^  fused_kernels +measured +text' <<<"$out" || { echo "FAILED: fused_kernels' row is missing" >&2; exit 1; }
  grep -Eq 'measured: the fused kernels measured' <<<"$out" || { echo "FAILED: fused_kernels' meaning is missing" >&2; exit 1; }
  grep -Eq '^  warmup_epochs +5 +an integer' <<<"$out" || { echo "FAILED: warmup_epochs' row is missing" >&2; exit 1; }
done
echo "help train fits 100 and 80 columns"

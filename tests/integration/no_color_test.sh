#!/usr/bin/env bash
# On a terminal the console's warnings and errors are coloured; NO_COLOR (https://no-color.org)
# turns that off, and output that is not a terminal never has colour codes.
# Usage: no_color_test.sh HOST   (needs util-linux's `script` for a pseudo-terminal)
set -euo pipefail
host=$1
fail() { echo "FAILED: $*" >&2; exit 1; }
command -v script > /dev/null || { echo "skipped: no 'script' (util-linux) for a pseudo-terminal"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
bad="$host train model=no_such_family data=missing.yaml"  # fails at once, with an error line
# spdlog colours only a terminal whose TERM it knows: name one, whatever the caller has.
env -u NO_COLOR TERM=xterm-256color script -qec "$bad" /dev/null > tty.txt || true
NO_COLOR=1 TERM=xterm-256color script -qec "$bad" /dev/null > tty_no_color.txt || true
$bad > piped.txt 2>&1 || true
escape=$'\033['
grep -q "error: model 'no_such_family'" tty.txt || { cat tty.txt; fail "the command did not print its error on the terminal"; }
grep -qF "$escape" tty.txt || fail "an error on a terminal is not coloured"
grep -q "error: model 'no_such_family'" tty_no_color.txt || fail "with NO_COLOR the error is missing"
! grep -qF "$escape" tty_no_color.txt || fail "NO_COLOR=1 still printed colour codes"
! grep -qF "$escape" piped.txt || fail "output to a pipe has colour codes"
echo "ok: colour on a terminal only, and never with NO_COLOR"

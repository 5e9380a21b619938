#!/usr/bin/env bash
# The generated bash completion script completes commands, option names and choice values.
# Usage: completion_test.sh HOST
set -euo pipefail
host=$1
fail() { echo "FAILED: $*" >&2; exit 1; }
script=$(mktemp); trap 'rm -f "$script"' EXIT
"$host" completion bash > "$script"
# shellcheck disable=SC1090
source "$script"
complete_words() {  # the completions bash would offer for the words given
  COMP_WORDS=(libreyolo-host "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
  _libreyolo_host
  echo "${COMPREPLY[*]}"
}
[ "$(complete_words tr)" = "train" ] || fail "'tr' did not complete to train: $(complete_words tr)"
[ "$(complete_words train epo)" = "epochs=" ] || fail "'train epo' gave: $(complete_words train epo)"
[ "$(complete_words train optimizer=a)" = "optimizer=adam optimizer=adamw" ] || fail "'optimizer=a' gave: $(complete_words train optimizer=a)"
[ "$(complete_words val exist_ok=t)" = "exist_ok=true" ] || fail "'val exist_ok=t' gave: $(complete_words val exist_ok=t)"
[ -z "$(complete_words train no_such_option)" ] || fail "an unknown option completed"
echo "ok: bash completion completes commands, options and their values"

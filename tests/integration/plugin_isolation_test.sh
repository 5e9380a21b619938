#!/usr/bin/env bash
# Plugin isolation (issue #20 item 7, docs/reliability.md "Plugins that crash or hang"): plugins
# that abort, fault, hang or exit while loaded are scanned in a child process and refused by
# name, the host lives on; the registry cache answers for unchanged files; bad folder entries
# are one warning each. One case per call.
# Usage: plugin_isolation_test.sh CASE HOST CRASHING_PLUGIN_DIR GOOD_PLUGIN_DIR WORK_DIR
#   CASE: crashing_plugins | registry_cache | folder_problems
set -euo pipefail
case_name=$1; host=$2; crashing=$3; good=$4; work=$5/$1
rm -rf "$work"; mkdir -p "$work"; cd "$work"
export XDG_CACHE_HOME=$work/cache LIBREYOLO_PLUGIN_PATH=
# 2 s instead of 10: the hanging fixture is waited for this long on each cold scan. The clock
# starts once the scanner runs, so its own start (LibTorch, seconds on a busy machine) is not in it.
export LIBREYOLO_PLUGIN_SCAN_TIMEOUT=2
fail() { echo "FAILED: $*" >&2; exit 1; }
expect() {  # expect LOG REGEX WHAT
  grep -Eq -- "$2" "$1" || { cat "$1"; fail "$3 (no match for: $2)"; }
}
families() {  # families LOG ARGS...: must exit 0
  local log=$1; shift
  local code=0
  "$host" families "$@" > "$log" 2>&1 || code=$?
  [ "$code" -eq 0 ] || { cat "$log"; fail "families exited $code ($*)"; }
}
refusal() {  # refusal LOG FILE REASON: the refused-plugins list names FILE, then REASON
  grep -A1 -F -- "$crashing/$2" "$1" | grep -Eq -- "$3" || { cat "$1"; fail "$2 not listed as refused with: $3"; }
}

crashing_plugins_case() {
  families families.log --plugin-dir "$crashing"
  expect families.log "isolated_good +n,s" "the good plugin beside the crashing ones did not load"
  expect families.log "Refused plugins:" "no refused plugins listed"
  refusal families.log libfixture_crash_1_abort.so "crashed the plugin scanner with signal 6, SIGABRT"
  refusal families.log libfixture_crash_2_null_factory.so "signal 11, SIGSEGV \(Segmentation fault\)"
  refusal families.log libfixture_crash_3_hangs.so "it hung: .* within 2 s and was killed"
  refusal families.log libfixture_crash_4_exit_in_constructor.so "exit code 0 before the scan finished"
  refusal families.log libfixture_crash_5_garbage_factory.so "crashed the plugin scanner with signal 11"
  expect families.log " 5 refused\." "not exactly the five crashing plugins were refused"
  # The warning names the file too (what a train command's log shows).
  expect families.log "plugin $crashing/libfixture_crash_2_null_factory.so not loaded: it crashed" "no warning naming the file"
  # A command that trains goes through the same loading: it fails only for its own reason.
  set +e
  "$host" train model=nosuchfamilyn --plugin-dir "$crashing" > train.log 2>&1; code=$?
  set -e
  [ "$code" -eq 1 ] || { cat train.log; fail "train exited $code, expected 1 (unknown family)"; }
  expect train.log "names no loaded family.*isolated_good" "train did not get past plugin loading"
  echo "ok: 5 crashing plugins refused by name and reason, the host lived, the good one loaded"
}

scan_lines() { grep -c "scanning it in a child process" "$1" || true; }

registry_cache_case() {
  families cold.log --plugin-dir "$crashing" verbose=true
  [ "$(scan_lines cold.log)" -ge 6 ] || { cat cold.log; fail "the first run did not scan every plugin"; }
  cache=$(ls "$XDG_CACHE_HOME"/libreyolo/plugin-registry-*.txt)
  head -1 "$cache" | grep -q "^libreyolo-plugin-registry 1$" || fail "the cache does not start with its header"
  grep -q "^hung	.*libfixture_crash_3_hangs.so" "$cache" || { cat "$cache"; fail "the hang is not recorded"; }

  families warm.log --plugin-dir "$crashing" verbose=true
  [ "$(scan_lines warm.log)" -eq 0 ] || { cat warm.log; fail "the second run scanned again"; }
  expect warm.log "libfixture_crash_3_hangs.so: hung \(from the plugin registry cache\)" "the hang was not taken from the cache"
  expect warm.log "libfixture_crash_0_good.so: ok \(from the plugin registry cache\)" "the good plugin was not taken from the cache"
  refusal warm.log libfixture_crash_1_abort.so "SIGABRT.*does not load it until the file changes"
  expect warm.log " 5 refused\." "the cached run refused other plugins"

  # A changed file (touch moves its mtime and ctime) is scanned again, and only it.
  touch "$crashing/libfixture_crash_1_abort.so"
  families touched.log --plugin-dir "$crashing" verbose=true
  [ "$(scan_lines touched.log)" -eq 1 ] || { cat touched.log; fail "touching one plugin did not rescan exactly it"; }
  expect touched.log "libfixture_crash_1_abort.so: scanning it" "the touched plugin was not the one rescanned"

  # A damaged cache is ignored (everything scanned again) and rewritten.
  printf 'libreyolo-plugin-registry 1\nrubbish\n' > "$cache"
  families damaged.log --plugin-dir "$crashing" verbose=true
  expect damaged.log "plugin registry cache .* ignored" "the damaged cache was not reported at debug level"
  [ "$(scan_lines damaged.log)" -ge 6 ] || { cat damaged.log; fail "a damaged cache was trusted"; }
  grep -q "^end	" "$cache" || fail "the damaged cache was not rewritten"
  families again.log --plugin-dir "$crashing" verbose=true
  [ "$(scan_lines again.log)" -eq 0 ] || { cat again.log; fail "the rewritten cache is not used"; }
  echo "ok: cold run scans, warm run scans nothing, a touched file is rescanned, a damaged cache is rewritten"
}

folder_problems_case() {
  mkdir plugins
  cp "$good"/libreyolo_family_example.so plugins/
  ln -s libloop.so plugins/libloop.so          # a link to itself: ELOOP
  ln -s libnowhere.so plugins/libdangling.so   # a link to nothing
  families folder.log --plugin-dir "$work/plugins"
  expect folder.log "^example " "the good plugin in the folder did not load"
  expect folder.log "libloop.so not loaded: it cannot be examined: Too many levels of symbolic links" "no warning for the symlink loop"
  expect folder.log "libdangling.so not loaded: it is a symbolic link to a file that does not exist" "no warning for the dangling link"
  [ "$(grep -c "libloop.so not loaded" folder.log)" -eq 1 ] || fail "the loop is not exactly one warning"

  families missing.log --plugin-dir "$work/no-such-folder"
  expect missing.log "plugin folder $work/no-such-folder \(plugin_dir=\) does not exist; it is skipped" "no warning for a missing plugin_dir"
  expect missing.log "^example " "a missing plugin_dir stopped the bundled families"

  # An unreadable file needs a user that cannot read it: root reads everything.
  cp "$good"/libreyolo_family_example.so plugins/libsecret.so
  chmod 000 plugins/libsecret.so
  local as_user=()
  if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv > /dev/null || { echo "skipped the unreadable file: root and no setpriv"; return 0; }
    # nobody reads root's registry cache (the other plugins need no scan) and writes nothing.
    chmod 777 "$work" plugins
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    # nobody may not reach the host's own libraries (a build whose Boost or LibTorch lives in a
    # folder only root can enter, as on the GPU machine): then this check cannot run there.
    "${as_user[@]}" "$host" version > as_nobody.log 2>&1 ||
      { echo "skipped the unreadable file: user nobody cannot run the host here: $(head -1 as_nobody.log)"; return 0; }
  fi
  "${as_user[@]}" "$host" families --plugin-dir "$work/plugins" > unreadable.log 2>&1 ||
    { cat unreadable.log; fail "families failed on an unreadable plugin file"; }
  expect unreadable.log "libsecret.so not loaded: it cannot be read: Permission denied" "no warning for the unreadable file"
  echo "ok: symlink loop, dangling link, unreadable file and missing plugin_dir are one warning each"
}

"${case_name}_case"

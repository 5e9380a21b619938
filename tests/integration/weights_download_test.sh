#!/usr/bin/env bash
# model=NAME.pt end to end, offline: a real checkpoint written by this host (YOLOv9-t, one CPU
# epoch on coco16) is served as LibreYOLO9t.pt from a loopback HTTP server; the host downloads it
# into the cache, uses the cache without the server, and fails clearly (leaving nothing that
# looks complete) on a 404, an unknown name, offline mode and a server that dies mid-way; a
# leftover .part is resumed by a Range request, or fetched whole from a server that ignores it.
# Usage: weights_download_test.sh HOST SOURCE_DIR WORK_DIR
set -euo pipefail
host=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
data=$src/datasets/coco16/data.yaml
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAILED: $*" >&2; exit 1; }
command -v python3 > /dev/null || { echo "skipped: no python3 for the test server"; exit 77; }

# Everything the host may touch lives in $work: the cache, HOME, the working folder.
export HOME=$work/home XDG_CACHE_HOME=$work/xdg
unset LIBREYOLO_WEIGHTS LIBREYOLO_OFFLINE LIBREYOLO_WEIGHTS_URL
cache=$XDG_CACHE_HOME/libreyolo
mkdir -p "$HOME" "$work/cwd"
cd "$work/cwd"

# 1. A model named by family and size trains from scratch, and says so once.
"$host" train model=yolo9t data=$data imgsz=160 batch=8 workers=2 epochs=1 device=cpu seed=0 project=$work/runs \
  name=scratch > scratch.log 2>&1 || { cat scratch.log; fail "training yolo9t from scratch"; }
[ "$(grep -c 'training from scratch (no pretrained weights)' scratch.log)" -eq 1 ] ||
  { cat scratch.log; fail "model=yolo9t: expected one 'training from scratch' line"; }
grep -q "training from scratch" "$work/runs/scratch/train.log" || fail "train.log does not say it trained from scratch"
echo "ok: model=yolo9t trains from scratch and says so once"

# Without libcurl the host cannot download: it must say so, with the URL and where to put the file.
if "$host" version | grep -q "^downloader *none"; then
  LIBREYOLO_WEIGHTS_URL=http://127.0.0.1:9 "$host" val model=LibreYOLO9t.pt data=$data > nodl.log 2>&1 &&
    fail "a build without a downloader found LibreYOLO9t.pt"
  grep -q "this build has no downloader" nodl.log && grep -q "download it yourself from http://127.0.0.1:9/LibreYOLO9t/resolve/main/LibreYOLO9t.pt and put it in $cache" nodl.log ||
    { cat nodl.log; fail "no-downloader message"; }
  echo "skipped: built without libcurl (the no-downloader message is right)"; exit 77
fi

# The served tree mirrors Hugging Face's: <stem>/resolve/main/<stem>.pt.
served=$work/serve/LibreYOLO9t/resolve/main/LibreYOLO9t.pt
mkdir -p "$(dirname "$served")"
cp "$work/runs/scratch/weights/last.pt" "$served"
size=$(stat -c %s "$served")
[ "$size" -gt 100000 ] || fail "the served checkpoint is only $size bytes"

server_pid=""
stop_server() { if [ -n "$server_pid" ]; then kill "$server_pid" 2> /dev/null || true; wait "$server_pid" 2> /dev/null || true; server_pid=""; fi; }
trap stop_server EXIT
wait_for_port() {  # until something listens on 127.0.0.1:$1
  for _ in $(seq 100); do (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0; sleep 0.1; done
  fail "the test server did not start on port $1"
}
# python3 -m http.server on a free port (asked of the kernel, then released: retried if taken meanwhile).
start_http_server() {
  for _ in 1 2 3; do
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server --bind 127.0.0.1 "$port" --directory "$work/serve" > "$work/http_server.log" 2>&1 &
    server_pid=$!
    sleep 0.3
    kill -0 "$server_pid" 2> /dev/null && { wait_for_port "$port"; return 0; }
    server_pid=""
  done
  fail "python3 -m http.server did not start"
}
# weights_server.py MODE [BYTES]: Range support, or none, or death mid-body.
start_odd_server() {
  rm -f "$work/port"
  python3 "$here/weights_server.py" "$work/serve" "$work/port" "$@" > "$work/odd_server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || fail "weights_server.py did not start"
  port=$(cat "$work/port")
}
val_named() {  # val_named LOG NAME: val of model=NAME (the quickest command that loads weights)
  local log=$1; shift
  "$host" val model="$1" data=$data imgsz=160 batch=8 workers=2 device=cpu project=$work/val exist_ok=true > "$log" 2>&1
}

# 2. Downloaded from the server into the cache, byte for byte, with progress and one line saying so.
start_http_server
export LIBREYOLO_WEIGHTS_URL=http://127.0.0.1:$port
url=$LIBREYOLO_WEIGHTS_URL/LibreYOLO9t/resolve/main/LibreYOLO9t.pt
"$host" train model=LibreYOLO9t.pt data=$data imgsz=160 batch=8 workers=2 epochs=1 device=cpu seed=0 project=$work/runs \
  name=pretrained > download.log 2>&1 || { cat download.log; fail "training from the downloaded LibreYOLO9t.pt"; }
cmp -s "$served" "$cache/LibreYOLO9t.pt" || fail "the cached file differs from the served one"
[ ! -e "$cache/LibreYOLO9t.pt.part" ] || fail "a .part is left after a complete download"
grep -q "downloading LibreYOLO9t.pt from $url into $cache" download.log || { cat download.log; fail "no 'downloading' line"; }
grep -q "weights LibreYOLO9t.pt: $cache/LibreYOLO9t.pt (downloaded from $url" download.log || { cat download.log; fail "no line saying which file was used"; }
grep -q "starting from $cache/LibreYOLO9t.pt" download.log || fail "the run did not start from the downloaded weights"
grep -q "training from scratch" download.log && fail "a run from weights says it trains from scratch"
grep -q "LibreYOLO9t.pt: .* of .* (100%) at " download.log || { cat download.log; fail "no final progress line"; }
[ "$(grep -c 'LibreYOLO9t.pt: .* of ' download.log)" -le 4 ] || fail "progress spams a log that is not a terminal"
grep -q $'\r' download.log && fail "progress wrote carriage returns to a log that is not a terminal"
grep -q "GET /LibreYOLO9t/resolve/main/LibreYOLO9t.pt" "$work/http_server.log" || fail "the server saw no request"
echo "ok: LibreYOLO9t.pt downloaded into the cache ($size bytes) and trained from"

# 3. The second time the cache serves it: the server is gone, so any download attempt would fail.
stop_server
val_named cached.log LibreYOLO9t.pt || { cat cached.log; fail "val from the cache"; }
grep -q "weights LibreYOLO9t.pt: $cache/LibreYOLO9t.pt (found in the cache" cached.log || { cat cached.log; fail "the cache was not used"; }
grep -q "downloading" cached.log && fail "a cached file was downloaded again"
echo "ok: the second run uses the cache, without the server"

# 4. A 404: a clear error with the URL, and no file at all.
start_http_server
export LIBREYOLO_WEIGHTS_URL=http://127.0.0.1:$port
val_named missing.log LibreYOLO9s.pt && fail "a 404 was not an error"
grep -q "could not download LibreYOLO9s.pt from http://127.0.0.1:$port/LibreYOLO9s/resolve/main/LibreYOLO9s.pt: the server answered HTTP 404 (Not Found)" missing.log &&
  grep -q "download it yourself from http://127.0.0.1:$port/LibreYOLO9s/resolve/main/LibreYOLO9s.pt and put it in $cache (or set LIBREYOLO_WEIGHTS" missing.log ||
  { cat missing.log; fail "the 404 message"; }
ls "$cache" | grep -q LibreYOLO9s && fail "a 404 left a file: $(ls "$cache")"
echo "ok: 404 -> $(grep -o 'the server answered HTTP 404 (Not Found)' missing.log), no file left"

# 5. A name LibreYOLO does not publish, and offline mode: an error naming the places, no request.
requests_before=$(grep -c GET "$work/http_server.log" || true)
val_named unknown.log my_weights.pt && fail "an unknown missing name was not an error"
grep -q "weights 'my_weights.pt' not found: looked in the working folder ($work/cwd), its weights/ folder ($work/cwd/weights), the cache ($cache)" unknown.log ||
  { cat unknown.log; fail "the unknown-name message"; }
LIBREYOLO_OFFLINE=1 val_named offline.log LibreYOLOXs.pt && fail "offline mode downloaded"
grep -q "downloads are off (LIBREYOLO_OFFLINE is set). download it yourself from http://127.0.0.1:$port/LibreYOLOXs/resolve/main/LibreYOLOXs.pt" offline.log ||
  { cat offline.log; fail "the offline message"; }
[ "$(grep -c GET "$work/http_server.log" || true)" -eq "$requests_before" ] || fail "an unknown name or offline mode sent a request"
echo "ok: unknown names and LIBREYOLO_OFFLINE=1 send no request and say where they looked"
stop_server

# 6. A server that dies after half the file: only a .part of that half remains, and the error says so.
half=$((size / 2))
start_odd_server die-after "$half"
export LIBREYOLO_WEIGHTS_URL=http://127.0.0.1:$port
rm -f "$cache/LibreYOLO9t.pt"
val_named died.log LibreYOLO9t.pt && fail "a truncated download was not an error"
grep -q "could not download LibreYOLO9t.pt from $LIBREYOLO_WEIGHTS_URL/LibreYOLO9t/resolve/main/LibreYOLO9t.pt: the connection closed after" died.log &&
  grep -q "kept in $cache/LibreYOLO9t.pt.part and resumed next time" died.log || { cat died.log; fail "the truncation message"; }
[ ! -e "$cache/LibreYOLO9t.pt" ] || fail "a truncated download left a complete-looking file"
[ "$(stat -c %s "$cache/LibreYOLO9t.pt.part")" -eq "$half" ] || fail "the .part holds $(stat -c %s "$cache/LibreYOLO9t.pt.part") bytes, not $half"
wait "$server_pid" 2> /dev/null || true; server_pid=""
# Now nobody listens there: a network error, said as one, and the .part is kept.
val_named refused.log LibreYOLO9t.pt && fail "a refused connection was not an error"
grep -q "the connection was refused or the server is unreachable" refused.log || { cat refused.log; fail "the refused message"; }
[ "$(stat -c %s "$cache/LibreYOLO9t.pt.part")" -eq "$half" ] || fail "a refused connection changed the .part"
echo "ok: a server dying mid-way leaves only a $half-byte .part; a refused connection says so"

# 7. The .part is resumed with a Range request for the rest, and the result is byte-identical.
start_odd_server range
export LIBREYOLO_WEIGHTS_URL=http://127.0.0.1:$port
val_named resumed.log LibreYOLO9t.pt || { cat resumed.log; fail "resuming the .part"; }
grep -q "resuming $cache/LibreYOLO9t.pt.part after" resumed.log || { cat resumed.log; fail "the resume was not mentioned"; }
grep -q "GET /LibreYOLO9t/resolve/main/LibreYOLO9t.pt range=bytes=$half-" "$work/odd_server.log" || { cat "$work/odd_server.log"; fail "no Range request for the rest"; }
cmp -s "$served" "$cache/LibreYOLO9t.pt" || fail "the resumed file differs from the served one"
[ ! -e "$cache/LibreYOLO9t.pt.part" ] || fail "a .part is left after resuming"
stop_server
echo "ok: the .part resumed from byte $half into the whole file"

# 8. A server that ignores Range sends the whole file: a leftover .part of garbage is replaced, not appended to.
start_odd_server no-range
export LIBREYOLO_WEIGHTS_URL=http://127.0.0.1:$port
rm -f "$cache/LibreYOLO9t.pt"
head -c 1000 /dev/urandom > "$cache/LibreYOLO9t.pt.part"
val_named restarted.log LibreYOLO9t.pt || { cat restarted.log; fail "downloading over a .part from a server without Range"; }
cmp -s "$served" "$cache/LibreYOLO9t.pt" || fail "the file fetched whole differs from the served one"
grep -q "the server did not resume the partial download: fetched it whole" restarted.log || { cat restarted.log; fail "the restart was not mentioned"; }
stop_server
echo "ok: a server without Range support: the .part is fetched whole again"

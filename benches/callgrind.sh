#!/usr/bin/env bash
# Instructions per request under callgrind, for one or two taskd binaries in one run.
#
#   bash benches/callgrind.sh [NEW_BINARY] [OLD_BINARY]
#
# Each binary runs under `valgrind --tool=callgrind` with one worker, default flags
# (`info` log, `fsync` durability) and snapshots every hour (under valgrind a run is ~50x
# slower, and the default 1 s interval would bill re-encodings of the growing space to the
# requests). `taskd bench` (the new binary's) sends, on one keep-alive connection, N item
# GETs of 100 prefilled tasks, N POSTs, or N first pages of those 100 tasks
# (`limit=100`); the figure is (instructions of a run with 3,000 requests - those of a run
# with 1,000) / 2,000, so start-up, the prefill and shutdown cancel out. Prints one line
# per binary and request kind, and the ratio of new to old. Callgrind counts a `rep movsb`
# copy byte by byte, so figures that include large copies overstate their time.
set -euo pipefail
cd "$(dirname "$0")/.."
new=${1:-target/release/taskd}
old=${2:-}
token=callgrind-bench-token-0123456789abcdef
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Instructions of one run of BINARY answering N requests of WORKLOAD.
instructions() {
  local binary=$1 workload=$2 n=$3 data="$work/data-$RANDOM" out="$work/cg.$RANDOM"
  mkdir -p "$data"
  TASKD_DEFAULT_TOKEN=$token valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$binary" --bind 127.0.0.1:0 --data-dir "$data" --workers 1 \
    --snapshot-interval-ms 3600000 2>"$data.log" &
  local server=$! address=""
  for _ in $(seq 1 600); do
    address=$(sed -n 's/.*taskd listening on \(http:\/\/[^ ]*\).*/\1/p' "$data.log")
    [ -n "$address" ] && break
    sleep 0.1
  done
  [ -n "$address" ] || { cat "$data.log" >&2; echo "taskd did not start" >&2; exit 1; }
  local page=()
  [ "$workload" = page ] && page=(--page-query "limit=100")
  "$new" bench --url "$address" --token "$token" -w "$workload" "${page[@]}" -c 1 -n "$n" \
    --prefill 100 >/dev/null
  kill -TERM "$server"
  wait "$server" || true
  sed -n 's/^summary: //p' "$out"
}

per_request() {
  local binary=$1 workload=$2
  local small large
  small=$(instructions "$binary" "$workload" 1000)
  large=$(instructions "$binary" "$workload" 3000)
  echo $(( (large - small) / 2000 ))
}

for workload in read write page; do
  n=$(per_request "$new" "$workload")
  if [ -n "$old" ]; then
    o=$(per_request "$old" "$workload")
    awk -v w="$workload" -v n="$n" -v o="$o" \
      'BEGIN { printf "%-5s new %d  old %d  new/old %.3f\n", w, n, o, n / o }'
  else
    echo "$workload new $n"
  fi
done

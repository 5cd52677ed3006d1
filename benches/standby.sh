#!/usr/bin/env bash
# How closely a standby follows a loaded primary, and what that makes of a failover
# (docs §16), measured with taskd's own load generator.
#
#   bash benches/standby.sh                    (needs nats-server; Debian: apt-get install nats-server)
#   OLD=/path/to/older/taskd bash benches/standby.sh   (the same runs with OLD first, for a ratio)
#
# Starts the three-server JetStream cluster of deploy/nats (stores in a temporary folder),
# then, for each binary:
# - follow: primary a and standby b; `taskd bench -w write` on a for LOAD_SECONDS (40) over
#   CONNECTIONS (8); as the load ends, both nodes' appliedSeq, then `kill -9` of a and the
#   time until b answers /healthz/primary (the lease lapses in 5 s; a standby behind the
#   stream must first read what it lacks);
# - late: primary a takes LOAD_SECONDS of writes alone, then b starts on an empty data dir: the
#   time until it holds the whole stream (start-up catch-up included).
# Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_OF_LOAD=${LOAD_SECONDS:-40}
CONNECTIONS=${CONNECTIONS:-8}
TOKEN=standby-bench-token-0123456789abcdef0123456789
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --bin taskd -q
binaries=(${OLD:+"$OLD"} "$CARGO_TARGET_DIR/release/taskd")

work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. deploy/nats/cluster.sh
start_nats "$work"

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
applied() { curl -s "http://127.0.0.1:$1/healthz" | sed 's/.*"appliedSeq":\([0-9]*\).*/\1/'; }

# start NAME PORT: node NAME of cluster $cluster with binary $taskd; its pid in $started.
start() {
  TASKD_DEFAULT_TOKEN=$TOKEN "$taskd" --bind "127.0.0.1:$2" --data-dir "$work/$cluster/$1" \
    --node "$1" --cluster "$cluster" --log-level warn --nats "$N" 2>"$work/$cluster.$1.log" &
  started=$!
  pids+=("$started")
}

# load PORT: SECONDS_OF_LOAD of POSTs against the node on PORT; prints its line.
load() {
  "$taskd" bench --url "http://127.0.0.1:$1" --token "$TOKEN" -w write -c "$CONNECTIONS" \
    --prefill 0 -d "${SECONDS_OF_LOAD}s" | grep '^post'
}

wait_primary() {
  until curl -sf "http://127.0.0.1:$1/healthz/primary" >/dev/null; do sleep 0.05; done
}

run=0
for taskd in "${binaries[@]}"; do
  run=$((run + 1))
  echo "== $taskd"
  cluster=follow$run
  start a $((18500 + run)); a=$started
  wait_primary $((18500 + run))
  start b $((18600 + run))
  sleep 1
  load $((18500 + run))
  primary=$(applied $((18500 + run))) standby=$(applied $((18600 + run)))
  kill -9 "$a"
  killed=$(now)
  echo "follow: at the kill a held $primary messages, b $standby ($((primary - standby)) behind)"
  wait_primary $((18600 + run))
  echo "follow: b leads $(since "$killed") s after the kill"

  cluster=late$run
  start a $((18700 + run))
  wait_primary $((18700 + run))
  load $((18700 + run))
  target=$(applied $((18700 + run)))
  begun=$(now)
  start b $((18800 + run))
  until [ "$(applied $((18800 + run)) 2>/dev/null)" = "$target" ]; do sleep 0.05; done
  echo "late: b started empty holds all $target messages after $(since "$begun") s"
done

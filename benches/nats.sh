#!/usr/bin/env bash
# POSTs with and without --nats (issue 18's goal: p50 within +1 ms, throughput >= 0.7x),
# measured with taskd's own load generator.
#
#   bash benches/nats.sh            (needs nats-server on the PATH; Debian: apt-get install nats-server)
#
# Starts the three-server JetStream cluster of deploy/nats (stores in a temporary folder),
# then, REPS times in turn: a fresh taskd without --nats, and a fresh one with --nats
# against the cluster (an R3 stream), each driven by `taskd bench -w write` for
# SECONDS_PER_RUN seconds over CONNECTIONS (8) connections. Prints each run's throughput
# and percentiles and, per repetition, the ratios with/without (`taskd bench --compare`).
# Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
CONNECTIONS=${CONNECTIONS:-8}
TOKEN=nats-bench-token-0123456789abcdef0123456789
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --bin taskd -q
taskd=$CARGO_TARGET_DIR/release/taskd

work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. deploy/nats/cluster.sh
start_nats "$work"

# One run: a fresh server (with the extra flags given) on its own data dir, driven for
# SECONDS_PER_RUN, its result in $work/<name>.json; more bench flags after the name.
run() {
  local name=$1 port=$2; shift 2
  local flags=()
  [ "${name%%-*}" = nats ] && flags=(--nats "$N" --node bench --cluster "bench$port")
  TASKD_DEFAULT_TOKEN=$TOKEN "$taskd" --bind 127.0.0.1:$port --data-dir "$work/$name" \
    --log-level warn "${flags[@]}" 2>"$work/$name.log" &
  local server=$!
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/healthz/primary" >/dev/null && break
    sleep 0.1
  done
  echo "== $name"
  "$taskd" bench --url "http://127.0.0.1:$port" --token "$TOKEN" -w write -c "$CONNECTIONS" --prefill 0 \
    -d "${SECONDS_PER_RUN}s" --json "$work/$name.json" "$@"
  kill -TERM $server
  wait $server || true
}

for rep in $(seq 1 "$REPS"); do
  run "plain-$rep" $((18300 + rep))
  run "nats-$rep" $((18400 + rep)) --compare "$work/plain-$rep.json"
done

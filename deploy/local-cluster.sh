#!/usr/bin/env bash
# A whole replicated taskd cluster on this machine (CONTRACT §16): three NATS JetStream
# servers (deploy/nats/n1..n3.conf, their stores under $DIR/nats), two taskd nodes (a on
# :8081, b on :8082, data in $DIR/a and $DIR/b) and HAProxy on :8080 (deploy/haproxy.cfg).
# Ctrl-C stops everything. Needs nats-server and haproxy (Debian: apt-get install
# nats-server haproxy).
#
#   deploy/local-cluster.sh [DIR]          # DIR defaults to a new temporary directory
#   curl -s 127.0.0.1:8080/healthz          # through the proxy: the primary
#   kill -9 $(cat DIR/a.pid)                # watch b take over: curl 127.0.0.1:8082/healthz
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-$(mktemp -d)}
export TASKD_ADMIN_TOKEN=${TASKD_ADMIN_TOKEN:-local-cluster-admin-token-0123456789}
cargo build --release --bin taskd -q
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
. deploy/nats/cluster.sh
start_nats "$DIR"
for node in a b; do
  port=$([ $node = a ] && echo 8081 || echo 8082)
  ./target/release/taskd --bind 127.0.0.1:$port --data-dir "$DIR/$node" --node $node \
    --nats $N 2>"$DIR/$node.log" &
  pids+=($!)
  echo $! >"$DIR/$node.pid"
  [ $node = a ] && sleep 1   # a starts the stream and makes the first user
done
sed '/^    server c /d' deploy/haproxy.cfg >"$DIR/haproxy.cfg"
haproxy -f "$DIR/haproxy.cfg" &
pids+=($!)
echo "cluster in $DIR: proxy http://127.0.0.1:8080, a :8081, b :8082;" \
  "default token in $DIR/a/default.token; logs $DIR/*.log"
wait

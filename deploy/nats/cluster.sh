# Sourced by deploy/local-cluster.sh and benches/nats.sh: start_nats DIR starts the three
# servers of deploy/nats with their stores under DIR/nats, adds their pids to the array
# `pids`, and returns once JetStream runs on all three and the meta group has a leader.
# N is then their client URLs, for taskd --nats.
start_nats() {
  local dir=$1
  mkdir -p "$dir/nats"
  for i in 1 2 3; do
    sed "s#/var/lib/taskd-nats/#$dir/nats/#" "deploy/nats/n$i.conf" >"$dir/nats/n$i.conf"
    nats-server -c "$dir/nats/n$i.conf" >"$dir/nats/n$i.log" 2>&1 &
    pids+=($!)
  done
  for _ in $(seq 1 100); do
    local ok=0
    for p in 8222 8223 8224; do
      curl -sf "http://127.0.0.1:$p/healthz?js-enabled-only=true" >/dev/null && ok=$((ok + 1))
    done
    [ $ok = 3 ] && curl -sf http://127.0.0.1:8222/jsz | grep -q '"leader"' && break
    sleep 0.2
  done
  N=nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224
}

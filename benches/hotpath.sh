#!/usr/bin/env bash
# The hot path against its ceiling, in one run: taskd binaries beside a bare actix-web
# server (`examples/ceiling.rs`: same framework, same JSON shapes, no work).
#
#   bash benches/hotpath.sh [TASKD_BINARY ...]
#
# Default binary: target/release/taskd. Builds the ceiling (`cargo build --release
# --example ceiling`). Needs valgrind, wrk, taskset and python3. For each server it prints:
#
# - instructions per GET and per POST under callgrind (one worker; (a run of 3,000 requests
#   - a run of 1,000) / 2,000, driven by `taskd bench` on one keep-alive connection);
# - with the server pinned to core 0 (`taskset -c 0`, one HTTP worker) and wrk on core 1:
#   GET requests/s at 8 connections and its ratio to the ceiling, GET p50/p99 at 8 and 64
#   connections, POST p99 at 8 connections, and context switches per GET and per POST (all
#   the server's threads, voluntary and not, over the requests wrk counted);
# - once: the p99 of a 100-byte write + fdatasync on the data directory's disk, 2,000
#   times, so POST p99 can be read against the disk it waited for.
#
# `HOTPATH_SECONDS` (default 5) sets the length of each wrk run, `HOTPATH_REPS` (default 3)
# how often each server's pinned runs are repeated (interleaved; the medians are printed).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${HOTPATH_SECONDS:-5}
reps=${HOTPATH_REPS:-3}
binaries=("$@")
[ ${#binaries[@]} -gt 0 ] || binaries=(target/release/taskd)
cargo build --release --example ceiling -q
ceiling=target/release/examples/ceiling
bench=${binaries[0]}
token=hotpath-bench-token-0123456789abcdef
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

# Starts BINARY (taskd or the ceiling) with PREFIX before it (valgrind, taskset) and
# ARGS after; sets $server and $address.
start() {
  local binary=$1 prefix=$2 args=$3 log="$work/log.$RANDOM" data="$work/data.$RANDOM"
  mkdir -p "$data"
  if [ "$binary" = "$ceiling" ]; then
    # shellcheck disable=SC2086
    $prefix "$binary" --bind 127.0.0.1:0 $args >"$log" 2>&1 &
  else
    # shellcheck disable=SC2086
    TASKD_DEFAULT_TOKEN=$token $prefix "$binary" --bind 127.0.0.1:0 --data-dir "$data" \
      --snapshot-interval-ms 3600000 $args >"$log" 2>&1 &
  fi
  server=$!
  address=""
  for _ in $(seq 1 600); do
    address=$(sed -n 's/.*listening on \(http:\/\/[^ ]*\).*/\1/p' "$log")
    [ -n "$address" ] && break
    sleep 0.1
  done
  [ -n "$address" ] || { cat "$log" >&2; echo "$binary did not start" >&2; exit 1; }
}

stop() {
  kill -TERM "$server"
  wait "$server" || true
  server=""
}

# Instructions of BINARY answering N requests of WORKLOAD (read or write) under callgrind.
instructions() {
  local binary=$1 workload=$2 n=$3 out="$work/cg.$RANDOM"
  start "$binary" "valgrind --tool=callgrind --callgrind-out-file=$out" "--workers 1"
  "$bench" bench --url "$address" --token "$token" -w "$workload" -c 1 -n "$n" \
    --prefill 100 >/dev/null
  stop
  sed -n 's/^summary: //p' "$out"
}

per_request() {
  local small large
  small=$(instructions "$1" "$2" 1000)
  large=$(instructions "$1" "$2" 3000)
  echo $(( (large - small) / 2000 ))
}

# Context switches of every thread of the running server so far.
switches() {
  cat /proc/"$server"/task/*/status 2>/dev/null |
    awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'
}

# Runs wrk on core 1 with CONNECTIONS against PATH (LUA: a script, or "") and prints
# "requests requests/s p50_ms p99_ms context-switches/request".
load() {
  local connections=$1 path=$2 lua=$3 out="$work/wrk.$RANDOM" before after
  local script=()
  [ -n "$lua" ] && script=(-s "$lua")
  before=$(switches)
  taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" --latency "${script[@]}" \
    -H "Authorization: Bearer $token" "$address$path" >"$out"
  after=$(switches)
  awk -v cs=$((after - before)) '
    function ms(v) {
      if (v ~ /us$/) return v / 1000
      if (v ~ /ms$/) return v + 0
      if (v ~ /s$/) return v * 1000
      return v
    }
    / 50%/ { p50 = ms($2) }
    / 99%/ { p99 = ms($2) }
    /requests in/ { n = $1 }
    /Requests\/sec/ { rps = $2 }
    END { printf "%d %.0f %.3f %.3f %.2f\n", n, rps, p50, p99, cs / n }' "$out"
}

cat >"$work/post.lua" <<'EOF'
wrk.method = "POST"
wrk.body = '{"name":"a task of the hot-path benchmark"}'
wrk.headers["Content-Type"] = "application/json"
EOF

# The pinned runs of BINARY: prints its line of figures.
pinned() {
  local binary=$1 name=$2
  start "$binary" "taskset -c 0" "--workers 1"
  curl -sf -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"todoId":"hot","name":"a task of the hot-path benchmark"}' \
    "$address/api/v1/tasks" >/dev/null
  read -r _ get_rps get50 get99 get_cs < <(load 8 /api/v1/tasks/hot "")
  read -r _ _ get50_64 get99_64 _ < <(load 64 /api/v1/tasks/hot "")
  read -r _ post_rps _ post99 post_cs < <(load 8 /api/v1/tasks "$work/post.lua")
  stop
  echo "$name $get_rps $get50 $get99 $get50_64 $get99_64 $get_cs $post_rps $post99 $post_cs"
}

sync_p99() {
  python3 - "$work" <<'EOF'
import os, sys, time
path = os.path.join(sys.argv[1], "sync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
times = []
for _ in range(2000):
    started = time.perf_counter()
    os.write(fd, b"x" * 100)
    os.fdatasync(fd)
    times.append(time.perf_counter() - started)
os.close(fd)
times.sort()
print("%.3f %.3f" % (times[len(times) // 2] * 1000, times[int(len(times) * 0.99)] * 1000))
EOF
}

echo "== instructions per request (callgrind, one worker)"
printf '%-28s %10s %10s %8s %8s\n' server GET POST GET/ceil POST/ceil
ceil_get=$(per_request "$ceiling" read)
ceil_post=$(per_request "$ceiling" write)
printf '%-28s %10d %10d\n' ceiling "$ceil_get" "$ceil_post"
for binary in "${binaries[@]}"; do
  get=$(per_request "$binary" read)
  post=$(per_request "$binary" write)
  awk -v b="$binary" -v g="$get" -v p="$post" -v cg="$ceil_get" -v cp="$ceil_post" \
    'BEGIN { printf "%-28s %10d %10d %8.2f %8.2f\n", b, g, p, g / cg, p / cp }'
done

echo
echo "== pinned: server on core 0 (one worker), wrk on core 1, ${seconds} s a run;"
echo "   each server ${reps} times, interleaved; medians"
read -r sync50 sync99 < <(sync_p99)
echo "write+fdatasync on this disk: p50 ${sync50} ms, p99 ${sync99} ms"
names=(ceiling "${binaries[@]}")
for _ in $(seq 1 "$reps"); do
  for name in "${names[@]}"; do
    if [ "$name" = ceiling ]; then pinned "$ceiling" ceiling; else pinned "$name" "$name"; fi
  done
done >"$work/pinned"
printf '%-28s %9s %6s %8s %8s %9s %9s %7s %9s %9s %7s\n' server GET/s ratio \
  p50@8 p99@8 p50@64 p99@64 cs/GET POST/s p99POST@8 cs/POST
for name in "${names[@]}"; do
  awk -v n="$name" '$1 == n' "$work/pinned" | awk -v n="$name" -v reps="$reps" '
    { for (c = 2; c <= 10; c++) v[c, NR] = $c }
    END {
      for (c = 2; c <= 10; c++) {
        for (i = 1; i <= NR; i++) x[i] = v[c, i]
        for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        m[c] = x[int((NR + 1) / 2)]
      }
      printf "%s", n
      for (c = 2; c <= 10; c++) printf " %s", m[c]
      printf "\n"
    }'
done >"$work/medians"
c_rps=$(awk '$1 == "ceiling" { print $2 }' "$work/medians")
awk -v c="$c_rps" '{ printf "%-28s %9.0f %6.2f %8.3f %8.3f %9.3f %9.3f %7.2f %9.0f %9.3f %7.2f\n",
  $1, $2, $2 / c, $3, $4, $5, $6, $7, $8, $9, $10 }' "$work/medians"

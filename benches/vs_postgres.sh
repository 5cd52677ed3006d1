#!/usr/bin/env bash
# taskd vs PostgreSQL: POST /api/v1/tasks over HTTP against INSERTs of the same row.
#
#   bash benches/vs_postgres.sh            (as root, or with sudo; Debian)
#
# Both sides sync every commit on the same disk: taskd with its default durability
# (fsync: a POST is answered once its journal entry is fdatasync'ed), PostgreSQL with
# fsync=on, synchronous_commit=on and the default WAL settings. Each repetition runs, in
# turn, 8 connections for 10 s against:
#   taskd        wrk -t2 -c8 -d10s --latency, POSTing a task body (the one of benches/)
#   pg-plain     pgbench -n -c 8 -j 2 -T 10: one INSERT of a task row
#   pg-versioned pgbench, one transaction: bump the space's version counter row
#                (UPDATE ... RETURNING version) and INSERT the row with that version, as
#                the interface's spaceVersion asks of a store
# and prints a table of the three, with the ratios per repetition and their median.
# Also measured: this disk's fdatasync latency (4 KiB appends), the floor under any
# latency percentile of a synced write. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
TOKEN=vs-postgres-bench-token-0123456789abcdef
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}

# --- Tools -------------------------------------------------------------------------------
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$pgbin" ] || ! command -v wrk >/dev/null || ! command -v pgbench >/dev/null \
    || ! command -v curl >/dev/null; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q postgresql wrk curl
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
fi
# initdb and postgres refuse to run as root: run them as the postgres user then.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

cargo build --release --bin taskd
taskd_bin=$CARGO_TARGET_DIR/release/taskd

# --- Temp dir and cleanup ------------------------------------------------------------------
# On the disk's file system (not a tmpfs), so both sides sync to the same device.
work=$(mktemp -d /var/tmp/vs_postgres.XXXXXX)
chmod 755 "$work"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [ -d "$work/pgdata" ] && as_pg "$pgbin/pg_ctl" -D "$work/pgdata" -m immediate stop \
    >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- The disk's sync latency ---------------------------------------------------------------
# probe_fsync N: N fdatasyncs of 4 KiB appends; their p50, p99 and max (or, "short", p50).
probe_fsync() {
  python3 - "$work" "$@" <<'EOF'
import os, sys, time
fd = os.open(os.path.join(sys.argv[1], "fsync.probe"), os.O_WRONLY | os.O_CREAT, 0o600)
lat, n = [], int(sys.argv[2])
for _ in range(n):
    t = time.perf_counter(); os.write(fd, b"x" * 4096); os.fdatasync(fd)
    lat.append((time.perf_counter() - t) * 1e3)
os.close(fd); lat.sort()
os.unlink(os.path.join(sys.argv[1], "fsync.probe"))
if sys.argv[3:] == ["short"]:
    print(f"{lat[n // 2]:.2f}")
else:
    print(f"p50 {lat[n // 2]:.2f} ms, p99 {lat[n * 99 // 100]:.2f} ms, max {lat[-1]:.2f} ms")
EOF
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
fsync_before=$(probe_fsync 1000)
echo "fdatasync of a 4 KiB append on this disk: $fsync_before" >&2

# --- PostgreSQL: a throwaway cluster -------------------------------------------------------
mkdir -p "$work/pgdata" "$work/pgsock"
chown postgres: "$work/pgdata" "$work/pgsock" 2>/dev/null || true
as_pg "$pgbin/initdb" -D "$work/pgdata" -U postgres -A trust >/dev/null
cat >>"$work/pgdata/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$work/pgsock'
fsync = on
synchronous_commit = on
EOF
as_pg "$pgbin/pg_ctl" -D "$work/pgdata" -l "$work/pgdata/server.log" -w start >/dev/null
psql=(psql -q -X -v ON_ERROR_STOP=1 -h "$work/pgsock" -U postgres -d postgres)

# The task row as taskd renders it (GET /api/v1/tasks/{id}), one column a field, the id
# the primary key as taskd's ids are unique in a space; spaces holds the version counter.
"${psql[@]}" <<'EOF'
CREATE TABLE spaces (id int PRIMARY KEY, version bigint NOT NULL);
INSERT INTO spaces VALUES (1, 0);
CREATE TABLE tasks (
  id text PRIMARY KEY,
  space_id int NOT NULL,
  sort_order double precision NOT NULL,
  name text NOT NULL,
  notes_markdown text,
  status text NOT NULL,
  complexity text,
  list_id text, context_id text, goal_id text,
  category_ids text[] NOT NULL DEFAULT '{}',
  schedule_ids text[] NOT NULL DEFAULT '{}',
  tag_ids text[] NOT NULL DEFAULT '{}',
  date_due timestamptz, date_start timestamptz,
  duration_estimate bigint, duration_ms bigint,
  is_important boolean NOT NULL DEFAULT false,
  is_time_sensitive boolean NOT NULL DEFAULT false,
  predecessors_all_any text NOT NULL DEFAULT 'ALL',
  predecessors_view boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  is_deleted boolean NOT NULL DEFAULT false,
  version bigint NOT NULL
);
EOF

# (a) A plain INSERT of the task body's fields (version 1, as with no counter).
cat >"$work/plain.sql" <<'EOF'
\set n random(1, 1000000000)
INSERT INTO tasks (id, space_id, sort_order, name, status, tag_ids, created_at, updated_at, version)
VALUES (gen_random_uuid()::text, 1, :n, 'Task ' || :n, 'open', '{a,b}', now(), now(), 1);
EOF
# (b) The same INSERT in a transaction that first takes the space's next version.
cat >"$work/versioned.sql" <<'EOF'
\set n random(1, 1000000000)
BEGIN;
UPDATE spaces SET version = version + 1 WHERE id = 1 RETURNING version \gset
INSERT INTO tasks (id, space_id, sort_order, name, status, tag_ids, created_at, updated_at, version)
VALUES (gen_random_uuid()::text, 1, :version, 'Task ' || :n, 'open', '{a,b}', now(), now(), :version);
COMMIT;
EOF

# One pgbench run of a script on emptied tables; sets pg="tps avg_ms p50_ms p99_ms".
run_pg() {
  "${psql[@]}" -c "TRUNCATE tasks; UPDATE spaces SET version = 0" -c "VACUUM" -c "CHECKPOINT"
  rm -rf "$work/pglog" && mkdir "$work/pglog"
  (cd "$work/pglog" && pgbench -n -c 8 -j 2 -T "$SECONDS_PER_RUN" -l -f "$work/$1.sql" \
    -h "$work/pgsock" -U postgres postgres) >"$work/pgbench.out" 2>&1 \
    || { cat "$work/pgbench.out"; exit 1; }
  grep -q "number of failed transactions: 0 " "$work/pgbench.out" \
    || { cat "$work/pgbench.out"; echo "pgbench: failed transactions" >&2; exit 1; }
  # Every transaction left its row (and, versioned, its own version number).
  local txns counts
  txns=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/pgbench.out")
  counts=$("${psql[@]}" -At -c "SELECT count(*) || ' ' || count(DISTINCT version) FROM tasks")
  case "$1:$counts" in
    plain:"$txns 1" | versioned:"$txns $txns") ;;
    *) echo "pgbench: $txns transactions but rows, versions: $counts" >&2; exit 1 ;;
  esac
  local tps avg
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$work/pgbench.out")
  avg=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$work/pgbench.out")
  # The per-transaction log: the third field is the latency in microseconds.
  pg=$(cat "$work/pglog"/pgbench_log.* | awk '{print $3}' | sort -n | awk -v tps="$tps" \
    -v avg="$avg" '{l[NR]=$1} END {printf "%.0f %.2f %.2f %.2f", tps, avg,
      l[int(NR*0.5)]/1000, l[int(NR*0.99)]/1000}')
}

# --- taskd ---------------------------------------------------------------------------------
# Each wrk thread POSTs the task body of benches/ with ids of its own (t<thread>-<n>).
cat >"$work/post.lua" <<EOF
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local n = 0
function request()
  n = n + 1
  local id = "t" .. tid .. "-" .. n
  return wrk.format("POST", "/api/v1/tasks", {
    ["Authorization"] = "Bearer $TOKEN",
    ["Content-Type"] = "application/json",
  }, '{"todoId":"' .. id .. '","name":"Task ' .. id .. '","status":"open","tagIds":["a","b"]}')
end
EOF

# wrk's latency (e.g. 812.00us, 1.53ms, 1.02s) in milliseconds.
to_ms() { awk -v v="$1" 'BEGIN { u = v; sub(/^[0-9.]+/, "", u); x = v + 0;
  if (u == "us") x /= 1000; else if (u == "s") x *= 1000; else if (u == "m") x *= 60000;
  printf "%.2f", x }'; }

# One wrk run against a fresh taskd on a fresh data dir; sets taskd="req/s p50_ms p99_ms".
run_taskd() {
  rm -rf "$work/taskd-data"
  # --log-level warn hides the "taskd listening on" line, so pick a free port beforehand.
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  TASKD_DEFAULT_TOKEN=$TOKEN "$taskd_bin" --bind "127.0.0.1:$port" \
    --data-dir "$work/taskd-data" --log-level warn 2>"$work/taskd.log" &
  server=$!
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null -H "Authorization: Bearer $TOKEN" \
      "http://127.0.0.1:$port/api/v1/tasks?limit=1" && break
    sleep 0.1
  done
  wrk -t2 -c8 -d"${SECONDS_PER_RUN}s" --latency -s "$work/post.lua" \
    "http://127.0.0.1:$port" >"$work/wrk.out"
  kill -TERM "$server" && wait "$server" || true
  server=""
  if grep -q -e "Non-2xx" -e "Socket errors" "$work/wrk.out"; then
    cat "$work/wrk.out" "$work/taskd.log"; echo "wrk: errors" >&2; exit 1
  fi
  local rps p50 p99
  rps=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$work/wrk.out")
  p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$work/wrk.out")")
  p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$work/wrk.out")")
  taskd="$rps $p50 $p99"
}

# --- The runs, alternating the three systems -----------------------------------------------
declare -a rows
for rep in $(seq 1 "$REPS"); do
  # The disk's sync latency drifts (a shared virtual disk): 200 syncs before each run.
  echo "repetition $rep/$REPS: taskd" >&2
  s1=$(probe_fsync 200 short); run_taskd; row="$rep $taskd"
  echo "repetition $rep/$REPS: pg-plain" >&2
  s2=$(probe_fsync 200 short); run_pg plain; row="$row $pg"
  echo "repetition $rep/$REPS: pg-versioned" >&2
  s3=$(probe_fsync 200 short); run_pg versioned; row="$row $pg $s1 $s2 $s3"
  echo "  $row" >&2
  rows+=("$row")
done

fsync_after=$(probe_fsync 1000)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "taskd vs PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), 8 connections, ${SECONDS_PER_RUN} s a run, every commit synced"
echo "disk fdatasync (4 KiB append, 1000 in a row): before the runs $fsync_before; after $fsync_after"
echo "load average (1, 5, 15 min) on $(nproc) cores: before $load_before; after $load_after"
printf '%s\n' "${rows[@]}" | awk '
  function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  BEGIN {
    printf "%-4s | %-22s | %-28s | %-28s | %-9s %-9s | %s\n", "rep", "taskd POST",
      "pg-plain INSERT", "pg-versioned txn", "taskd/", "taskd/", "fdatasync p50"
    printf "%-4s | %7s %6s %7s | %7s %6s %6s %6s | %7s %6s %6s %6s | %-9s %-9s | %s\n", "",
      "req/s", "p50", "p99", "tps", "avg", "p50", "p99", "tps", "avg", "p50", "p99",
      "plain", "versioned", "before each"
  }
  {
    n++; ra[n] = $2 / $5; rb[n] = $2 / $9
    printf "%-4s | %7d %6.2f %7.2f | %7d %6.2f %6.2f %6.2f | %7d %6.2f %6.2f %6.2f | %-9.2f %-9.2f | %s / %s / %s\n",
      $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ra[n], rb[n], $13, $14, $15
    t[n] = $2; tp50[n] = $3; tp99[n] = $4; a[n] = $5; b[n] = $9
  }
  END {
    printf "%-4s | %7d %6.2f %7.2f | %7d %6s %6s %6s | %7d %6s %6s %6s | %-9.2f %-9.2f\n",
      "med", median(t, n), median(tp50, n), median(tp99, n), median(a, n), "", "", "",
      median(b, n), "", "", "", median(ra, n), median(rb, n)
    print "(latencies in ms; taskd p50/p99 from wrk --latency, PostgreSQL avg from pgbench, p50/p99 from"
    print " its per-transaction log; fdatasync p50 of 200 4 KiB appends just before taskd / plain / versioned)"
  }'

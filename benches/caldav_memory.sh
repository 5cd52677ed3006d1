#!/usr/bin/env bash
# Memory per task of tasks made through CalDAV against tasks made through the JSON API
# (issue 39): TASKS (default 100,000) tasks into a fresh server each way (JSON batches,
# CalDAV PUTs kept as sent, an .ics import kept as its meaning), RSS per task filled and
# after a restart. The work is in benches/support/caldav_memory.py (standard library
# only).
#
#   bash benches/caldav_memory.sh              (TASKS=100000, the release build)
#   TASKD_BIN=path/to/taskd bash benches/caldav_memory.sh   (another build, e.g. a debug
#                                                            one or an older commit's)
#
# Not part of CI: it takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

TASKS=${TASKS:-100000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${TASKD_BIN:-}" ]; then
  cargo build --release --bin taskd
  TASKD_BIN=$CARGO_TARGET_DIR/release/taskd
fi
python3 benches/support/caldav_memory.py --taskd "$TASKD_BIN" --tasks "$TASKS" \
  --ways "${WAYS:-json,put,ics}"

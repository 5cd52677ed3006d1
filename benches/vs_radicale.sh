#!/usr/bin/env bash
# taskd vs Radicale over CalDAV (issue 30): the same 100,000 VTODOs in 10 calendars on both,
# then, on one calendar of 10,000, the time and bytes of
#   (1) REPORT sync-collection from an empty token,
#   (2) sync-collection from that token after 100 changes (100 PUTs, the same on both),
#   (3) REPORT calendar-multiget of 100 hrefs with calendar-data,
#   (4) PROPFIND Depth 1 asking getetag, getcontenttype and resourcetype,
# each answer checked complete, and taskd's RSS per task (VmRSS filled minus empty, over
# 100,000), with Radicale's RSS beside it.
#
#   bash benches/vs_radicale.sh            (REPS=7 LISTS=10 PER_LIST=10000 by default)
#
# Radicale (pinned below) is installed from PyPI into a venv under target/ when missing;
# taskd is `cargo build --release`. Both run on temporary data (taskd with its default
# durability, Radicale with multifilesystem storage written directly as Radicale lays it
# out, auth none), on free ports, logging warnings only. The work is in
# benches/support/caldav_bench.py, which the venv's Python runs (it reads calendar data
# with vobject, which Radicale brings). Not part of CI: it takes a few minutes and 2 GB of
# disk for the temporary data.
set -euo pipefail
cd "$(dirname "$0")/.."

RADICALE_VERSION=3.9.0
REPS=${REPS:-7}
LISTS=${LISTS:-10}
PER_LIST=${PER_LIST:-10000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}

venv=$CARGO_TARGET_DIR/radicale-venv
if ! "$venv/bin/python" -c "import radicale, sys; sys.exit(radicale.VERSION != '$RADICALE_VERSION')" \
    2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "radicale==$RADICALE_VERSION"
fi

cargo build --release --bin taskd

work=$(mktemp -d /var/tmp/vs_radicale.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" benches/support/caldav_bench.py --taskd "$CARGO_TARGET_DIR/release/taskd" \
  --work "$work" --reps "$REPS" --lists "$LISTS" --per-list "$PER_LIST"

#!/usr/bin/env python3
"""Memory per task of tasks made through CalDAV against tasks made through the JSON API
(issue 39): the helper of `benches/caldav_memory.sh` (run that rather than this).

Usage: caldav_memory.py --taskd BINARY [--tasks 100000] [--ways json,put,ics]

For each way, a fresh server (its own temporary data directory, `--durability write`) gets
`--tasks` tasks in its default space, and its RSS (VmRSS) is taken empty, once the tasks
are in and it has held still, and again after a restart on the same data (the space
loaded by a request). The ways:

- `json`: the JSON API, `POST /api/v1/batch` of 100 creates (name, status, isImportant,
  dateDue, tagIds), the fields the VTODOs below map to (no `todoId` given: a UUID, as a
  CalDAV task gets);
- `put`: CalDAV, one `PUT` per VTODO as vdirsyncer sends them (eight connections): a
  client's `UID` (`<hex>@host`, so the task keeps it), an object name of its own (a
  UUID), PRIORITY, DUE, a CATEGORIES value (a tag), an `X-` property and the
  `CREATED`/`DTSTAMP`/`LAST-MODIFIED`/`SEQUENCE` a client writes (about 380 bytes);
- `ics`: the same VTODOs through `POST /api/v1/calendar.ics` in bodies under 1 MiB
  (kept as their meaning: the unmapped lines and the UID, as a `PUT` kept them before
  issue 39).

Prints one line per way: bytes per task filled and after the restart (RSS minus the empty
server's, over the tasks), and the bytes per task of the space snapshots written at the
stop (what the codec stores, with none of the allocator's slack).
"""

import argparse
import base64
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

TOKEN = "caldav-memory-bench-token-0123456789abcdef"


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def settled_rss(pid):
    """The RSS once it has held within 1 % for a second (the allocator gives pages back
    some time after a burst), at most 20 s."""
    last = rss(pid)
    for _ in range(20):
        time.sleep(1)
        now = rss(pid)
        if abs(now - last) <= last // 100:
            return now
        last = now
    return last


class Taskd:
    def __init__(self, binary, data):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TASKD_")}
        env["TASKD_DEFAULT_TOKEN"] = TOKEN
        self.proc = subprocess.Popen(
            [binary, "--bind", "127.0.0.1:0", "--data-dir", data, "--durability", "write",
             "--workers", "2"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=env, text=True)
        for line in self.proc.stderr:
            m = re.search(r"taskd listening on http://([^ :]+):(\d+)", line)
            if m:
                self.host, self.port = m.group(1), int(m.group(2))
                break
        else:
            sys.exit("taskd did not start")
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def conn(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=120)

    def call(self, conn, method, path, body=None, headers=None):
        headers = dict(headers or {})
        headers.setdefault("Authorization", f"Bearer {TOKEN}")
        conn.request(method, path, body=body, headers=headers)
        reply = conn.getresponse()
        return reply.status, reply.read()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


def vtodo(i):
    uid = f"{uuid.UUID(int=i).hex}@laptop"
    return uid, (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench client//EN\r\nBEGIN:VTODO\r\n"
        f"CREATED:20260101T080000Z\r\nDTSTAMP:20260101T080000Z\r\n"
        f"LAST-MODIFIED:20260101T080000Z\r\nSEQUENCE:1\r\nUID:{uid}\r\n"
        f"SUMMARY:Task number {i}\r\nSTATUS:NEEDS-ACTION\r\nPRIORITY:{i % 10}\r\n"
        f"DUE:20260{1 + i % 9}{10 + i % 18}T090000Z\r\nCATEGORIES:Errands\r\n"
        f"X-CLIENT-ORDER:{i}\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")


def fill_json(server, count):
    conn = server.conn()
    for start in range(0, count, 100):
        ops = [{"method": "POST", "path": "/api/v1/tasks", "body": {
            "name": f"Task number {i}", "status": "open", "isImportant": 1 <= i % 10 <= 4,
            "dateDue": f"2026-0{1 + i % 9}-{10 + i % 18}T09:00:00Z", "tagIds": ["Errands"]}}
            for i in range(start, min(start + 100, count))]
        status, body = server.call(conn, "POST", "/api/v1/batch",
                                   json.dumps({"operations": ops}),
                                   {"Content-Type": "application/json"})
        assert status == 200, (status, body[:300])


def fill_put(server, count, calendar):
    auth = "Basic " + base64.b64encode(f"anyone:{TOKEN}".encode()).decode()

    def worker(first):
        conn = server.conn()
        for i in range(first, count, 8):
            _, text = vtodo(i)
            status, body = server.call(conn, "PUT", f"{calendar}{uuid.uuid4()}.ics", text,
                                       {"Authorization": auth,
                                        "Content-Type": "text/calendar; charset=utf-8",
                                        "If-None-Match": "*"})
            assert status == 201, (status, body[:300])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]


def fill_ics(server, count):
    conn = server.conn()
    header, footer = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n", "END:VCALENDAR\r\n"
    parts, size = [], 0
    for i in range(count + 1):
        todo = None
        if i < count:
            text = vtodo(i)[1]
            todo = text[text.index("BEGIN:VTODO"):text.index("END:VCALENDAR")]
        if todo is None or size + len(todo) > 900_000:
            status, body = server.call(conn, "POST", "/api/v1/calendar.ics",
                                       header + "".join(parts) + footer,
                                       {"Content-Type": "text/calendar"})
            assert status == 200, (status, body[:300])
            parts, size = [], 0
        if todo is not None:
            parts.append(todo)
            size += len(todo)


def measure(binary, way, count):
    work = tempfile.mkdtemp(prefix=f"taskd-mem-{way}-")
    data = os.path.join(work, "data")
    try:
        server = Taskd(binary, data)
        conn = server.conn()
        status, me = server.call(conn, "GET", "/api/v1/me")
        me = json.loads(me)["data"]
        calendar = f"/dav/calendars/{me['userId']}/{me['defaultSpaceId']}/"
        empty = settled_rss(server.proc.pid)
        began = time.time()
        {"json": lambda: fill_json(server, count),
         "put": lambda: fill_put(server, count, calendar),
         "ics": lambda: fill_ics(server, count)}[way]()
        took = time.time() - began
        filled = settled_rss(server.proc.pid)
        status, page = server.call(server.conn(), "GET", "/api/v1/tasks?limit=1")
        assert json.loads(page)["data"], page[:200]
        server.stop()
        spaces = os.path.join(data, "spaces")
        on_disk = sum(os.path.getsize(os.path.join(spaces, f)) for f in os.listdir(spaces))
        server = Taskd(binary, data)
        server.call(server.conn(), "GET", "/api/v1/tasks?limit=1")
        restarted = settled_rss(server.proc.pid)
        server.stop()
        per = lambda b: (b - empty) / count
        print(f"{way:>4}: {count} tasks in {took:.1f} s; RSS empty {empty / 2**20:.0f} MiB, "
              f"filled {filled / 2**20:.0f} MiB ({per(filled):.0f} B/task), restarted "
              f"{restarted / 2**20:.0f} MiB ({per(restarted):.0f} B/task); space snapshot "
              f"{on_disk / count:.0f} B/task", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--taskd", required=True)
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--ways", default="json,put,ics")
    args = parser.parse_args()
    for way in args.ways.split(","):
        measure(args.taskd, way, args.tasks)


if __name__ == "__main__":
    main()

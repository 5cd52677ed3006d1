#!/usr/bin/env python3
"""taskd against Radicale over CalDAV (issue 30): the helper of benches/vs_radicale.sh.

Usage (the shell script passes these; run it rather than this):

    caldav_bench.py --taskd target/release/taskd --work DIR [--reps 7]
                    [--lists 10] [--per-list 10000]

Runs with the Python of the venv that holds Radicale (it imports `vobject`, which Radicale
depends on, to read the calendar data answered). HTTP is `http.client` of the standard
library on one kept-alive connection per server; every request body is built and every
answer read with `xml.etree.ElementTree`. taskd is started here rather than through the
interop scripts' server class, since the bench restarts it on the same data, with its
default durability and without a log line per request.

1. Makes the data: `--lists` calendars of `--per-list` VTODOs each (SUMMARY, STATUS,
   PRIORITY, CATEGORIES; DUE for some, timed or all-day; DESCRIPTION for some; COMPLETED
   for the completed ones), from a fixed seed, each with a UID that is a taskd id so the
   object is `<UID>.ics` on both servers.
2. taskd: a fresh server on a temporary data directory (its default durability), one list
   per calendar made through the JSON API, its RSS taken (VmRSS), then the VTODOs imported
   with `POST /api/v1/calendar.ics?listId=` in bodies under 1 MiB, its RSS taken again;
   then the server is stopped and started again on the same data and its RSS taken once
   more (the space loaded by a request).
3. Radicale: its multifilesystem layout written directly (one `.ics` per object in one
   folder per calendar, beside a `.Radicale.props` with "tag": "VCALENDAR" and VTODO as the
   supported component), checked by `radicale --verify-storage` (which also builds the
   item cache and sync state that a running Radicale keeps beside the items), then the
   server is started on it (auth none, owner_only rights). A PROPFIND of every calendar
   must list all its objects, on both servers.
4. The measurements, on the first calendar, `--reps` rounds, the two servers alternating
   which goes first: (1) sync-collection from an empty token; (2) 100 PUTs changing 100
   objects (the same on both), then sync-collection from the token of (1); (3)
   calendar-multiget of 100 hrefs with getetag and calendar-data; (4) PROPFIND Depth 1
   asking getetag, getcontenttype and resourcetype. Each answer is checked whole (the
   count and the hrefs of its 200 members; for (3) the UID in each calendar-data); a sync
   cut with a 507 member is followed with its token until complete, the requests and
   bytes of all of them counted. Time is the client's wall time of a request, from the
   first byte sent to the last byte read.
5. Prints the table: medians with min-max, bytes, the ratios Radicale / taskd and the
   memory figures.
"""

import argparse
import base64
import datetime as dt
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import vobject

TOKEN = "vs-radicale-bench-token-0123456789abcdef"
DAV = "DAV:"
CALDAV = "urn:ietf:params:xml:ns:caldav"
ET.register_namespace("D", DAV)
ET.register_namespace("C", CALDAV)
CHANGES = 100
MULTIGET = 100


def q(ns, name):
    """An ElementTree name in Clark notation."""
    return f"{{{ns}}}{name}"


# --- The data --------------------------------------------------------------------------------

WORDS = ("call buy write review fix plan book check send clean order pay read update "
         "prepare water return renew ask sort print file cancel draft test move").split()
OBJECTS = ("dentist milk report invoice plants garage tickets taxes slides budget car "
           "insurance passport library books laptop backup offer contract newsletter "
           "roof heating bike tyres presents flowers").split()
CATEGORIES = ["home", "work", "errands", "calls", "reading", "finance", "garden"]
SENTENCES = [
    "Ask for the reference number first.",
    "The form is in the blue folder on the desk.",
    "Remember to keep the receipt for the records.",
    "Bring the old one back to the shop.",
    "Check the opening hours before going.",
    "Compare at least three offers this time.",
]
STAMP = "20261101T090000Z"


def fold(line):
    """An iCalendar content line folded at 75 octets (RFC 5545 §3.1)."""
    raw = line.encode()
    if len(raw) <= 75:
        return line
    parts, start, width = [], 0, 75
    while start < len(raw):
        end = min(start + width, len(raw))
        while end < len(raw) and (raw[end] & 0xC0) == 0x80:  # never split a character
            end -= 1
        parts.append(raw[start:end].decode())
        start, width = end, 74
    return "\r\n ".join(parts)


def escape(text):
    """A TEXT value escaped (RFC 5545 §3.3.11)."""
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\n", "\\n"))


def vtodo_lines(uid, rnd, summary_suffix=""):
    """The content lines of one realistic VTODO."""
    summary = f"{rnd.choice(WORDS).capitalize()} {rnd.choice(OBJECTS)}{summary_suffix}"
    lines = [
        "BEGIN:VTODO",
        f"UID:{uid}",
        f"DTSTAMP:{STAMP}",
        f"CREATED:{STAMP}",
        f"LAST-MODIFIED:{STAMP}",
        f"SUMMARY:{escape(summary)}",
    ]
    roll = rnd.random()
    status = ("NEEDS-ACTION" if roll < 0.6 else "IN-PROCESS" if roll < 0.7
              else "COMPLETED" if roll < 0.95 else "CANCELLED")
    lines.append(f"STATUS:{status}")
    if status == "COMPLETED":
        lines.append("COMPLETED:20261115T170000Z")
    lines.append(f"PRIORITY:{rnd.choice((0, 0, 1, 5, 9))}")
    cats = rnd.sample(CATEGORIES, rnd.choice((1, 1, 2)))
    lines.append("CATEGORIES:" + ",".join(escape(c) for c in cats))
    if rnd.random() < 0.4:
        day = dt.date(2026, 12, 1) + dt.timedelta(days=rnd.randrange(120))
        if rnd.random() < 0.5:
            lines.append(f"DUE;VALUE=DATE:{day:%Y%m%d}")
        else:
            lines.append(f"DUE:{day:%Y%m%d}T{rnd.randrange(8, 19):02d}0000Z")
    if rnd.random() < 0.3:
        text = " ".join(rnd.sample(SENTENCES, rnd.choice((1, 2, 3))))
        lines.append(f"DESCRIPTION:{escape(text)}")
    lines.append("END:VTODO")
    return lines


def calendar_text(vtodos):
    """A VCALENDAR holding the given VTODOs (each a list of unfolded lines)."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//taskd benches//vs_radicale//EN"]
    for vtodo in vtodos:
        lines.extend(vtodo)
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)


def make_data(lists, per_list):
    """{list index: [(uid, vtodo lines)]}, the same on every run."""
    rnd = random.Random(30)
    return {l: [(f"bench-l{l}-{i:05d}", vtodo_lines(f"bench-l{l}-{i:05d}", rnd))
                for i in range(per_list)] for l in range(lists)}


# --- Processes -------------------------------------------------------------------------------

def rss_bytes(pid):
    """The VmRSS of a process, in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Process:
    """A server started in the background, its stderr kept (last lines) and drained."""

    def __init__(self, argv, env, ready):
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=env, text=True)
        self.log = []
        self.seen = threading.Event()
        self.match = None

        def drain():
            for line in self.proc.stderr:
                self.log.append(line)
                del self.log[:-200]
                m = ready and re.search(ready, line)
                if m and self.match is None:
                    self.match = m
                    self.seen.set()
            self.seen.set()

        threading.Thread(target=drain, daemon=True).start()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Client:
    """One kept-alive HTTP connection, Basic authentication, timed requests."""

    def __init__(self, port, user, password):
        self.port = port
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def request(self, method, path, body=None, headers=None):
        """(status, headers, body bytes, seconds from the first byte sent to the last read)."""
        all_headers = {"Authorization": self.auth}
        all_headers.update(headers or {})
        data = body.encode() if isinstance(body, str) else body
        for attempt in (0, 1):
            try:
                start = time.perf_counter()
                self.conn.request(method, path, body=data, headers=all_headers)
                reply = self.conn.getresponse()
                payload = reply.read()
                took = time.perf_counter() - start
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed a kept-alive connection between requests: once more on
                # a new one (that attempt's time is not counted).
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
                if attempt:
                    raise
            except OSError:
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
                raise
        if reply.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        return reply.status, reply.headers, payload, took


def wait_until(ok, what, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if ok():
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"timed out waiting for {what}")


class Taskd:
    """taskd on a data directory, and the JSON calls the bench makes."""

    def __init__(self, binary, data_dir):
        self.binary, self.data_dir = binary, data_dir
        self.proc = None

    def start(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TASKD_")}
        env["TASKD_DEFAULT_TOKEN"] = TOKEN
        # Warnings only, as Radicale's: no line logged per request (which hides the
        # "listening on" line, so the port is chosen here).
        self.port = free_port()
        self.proc = Process([self.binary, "--bind", f"127.0.0.1:{self.port}", "--data-dir",
                             self.data_dir, "--log-level", "warn"], env, None)
        self.http = Client(self.port, "bench", TOKEN)
        self.api_conn = Client(self.port, "bench", TOKEN)
        self.api_conn.auth = f"Bearer {TOKEN}"
        wait_until(lambda: self.api_conn.request("GET", "/api/v1/me")[0] == 200,
                   "taskd to answer")
        me = self.api("GET", "/api/v1/me")
        self.user = me["data"]["userId"]
        self.space = me["data"]["defaultSpaceId"]

    def stop(self):
        self.proc.stop()

    def rss(self):
        return rss_bytes(self.proc.proc.pid)

    def api(self, method, path, body=None, content_type="application/json", expect=(200, 201)):
        headers = {"Content-Type": content_type} if body is not None else {}
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        status, _, payload, _ = self.api_conn.request(method, path, body, headers)
        if status not in expect:
            sys.exit(f"taskd: {method} {path}: {status} {payload[:500]!r}")
        return json.loads(payload) if payload else None

    def calendar(self, l):
        return f"/dav/calendars/{self.user}/{self.space}.list-{l}/"


class Radicale:
    """Radicale 3 on a multifilesystem folder."""

    def __init__(self, python, folder):
        self.python, self.folder = python, folder
        self.root = os.path.join(folder, "collection-root")
        self.proc = None

    def write(self, data):
        """Each calendar as a folder of `<UID>.ics` files beside its `.Radicale.props`."""
        for l, objects in data.items():
            path = os.path.join(self.root, "bench", f"list-{l}")
            os.makedirs(path, exist_ok=True)
            props = {"tag": "VCALENDAR", "C:supported-calendar-component-set": "VTODO",
                     "D:displayname": f"List {l}"}
            with open(os.path.join(path, ".Radicale.props"), "w") as f:
                json.dump(props, f, sort_keys=True)
            for uid, lines in objects:
                with open(os.path.join(path, f"{uid}.ics"), "w", newline="") as f:
                    f.write(calendar_text([lines]))

    def verify_storage(self):
        """`radicale --verify-storage`: Radicale reads every item and collection and says
        whether all are valid (exit 0). It also builds the item cache and the sync state
        a running Radicale keeps beside the items, as writing them through PUTs would, but
        without an fsync per file."""
        config = self._config()
        done = subprocess.run([self.python, "-m", "radicale", "--config", config,
                               "--verify-storage"], capture_output=True, text=True)
        check(done.returncode == 0, "radicale --verify-storage failed:\n" + done.stderr[-3000:])

    def _config(self):
        self.port = free_port()
        config = os.path.join(self.folder, "config")
        with open(config, "w") as f:
            f.write(f"""[server]
hosts = 127.0.0.1:{self.port}
[auth]
type = none
[rights]
type = owner_only
[storage]
filesystem_folder = {self.folder}
[web]
type = none
[logging]
level = warning
""")
        return config

    def start(self):
        config = self._config()
        self.proc = Process([self.python, "-m", "radicale", "--config", config],
                            dict(os.environ), None)
        self.http = Client(self.port, "bench", "bench")
        wait_until(lambda: self.http.request("OPTIONS", "/")[0] < 500, "Radicale to answer")

    def stop(self):
        self.proc.stop()

    def rss(self):
        return rss_bytes(self.proc.proc.pid)

    def calendar(self, l):
        return f"/bench/list-{l}/"


# --- Requests and checks -----------------------------------------------------------------------

def xml_text(root):
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def propfind_body():
    root = ET.Element(q(DAV, "propfind"))
    prop = ET.SubElement(root, q(DAV, "prop"))
    for name in ("getetag", "getcontenttype", "resourcetype"):
        ET.SubElement(prop, q(DAV, name))
    return xml_text(root)


def sync_body(token):
    root = ET.Element(q(DAV, "sync-collection"))
    ET.SubElement(root, q(DAV, "sync-token")).text = token or None
    ET.SubElement(root, q(DAV, "sync-level")).text = "1"
    prop = ET.SubElement(root, q(DAV, "prop"))
    ET.SubElement(prop, q(DAV, "getetag"))
    return xml_text(root)


def multiget_body(hrefs):
    root = ET.Element(q(CALDAV, "calendar-multiget"))
    prop = ET.SubElement(root, q(DAV, "prop"))
    ET.SubElement(prop, q(DAV, "getetag"))
    ET.SubElement(prop, q(CALDAV, "calendar-data"))
    for href in hrefs:
        ET.SubElement(root, q(DAV, "href")).text = href
    return xml_text(root)


class Answer:
    """A 207 answer read: per href, its status (of the response or of its propstat with
    the properties) and the properties found; the sync-token."""

    def __init__(self, payload):
        root = ET.fromstring(payload)
        if root.tag != q(DAV, "multistatus"):
            raise ValueError(f"not a multistatus: {root.tag}")
        self.members = {}
        self.order = []
        for response in root.findall(q(DAV, "response")):
            href = urllib.parse.unquote(response.findtext(q(DAV, "href")))
            codes, props = [], {}
            for propstat in response.findall(q(DAV, "propstat")):
                code = int(propstat.findtext(q(DAV, "status")).split()[1])
                codes.append(code)
                if code == 200:
                    for p in propstat.find(q(DAV, "prop")):
                        props[p.tag] = p
            status = response.findtext(q(DAV, "status"))
            if status is not None:
                code = int(status.split()[1])
            else:
                code = 200 if 200 in codes else (codes[0] if codes else None)
            self.members[href] = (code, props)
            self.order.append(href)
        self.token = root.findtext(q(DAV, "sync-token"))

    def ok(self):
        """The hrefs answered with 200."""
        return {h for h, (s, _) in self.members.items() if s == 200}


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)


def report(server, path, body):
    return server.http.request("REPORT", path, body, {
        "Content-Type": "application/xml; charset=utf-8", "Depth": "1"})


def sync(server, path, token):
    """A sync-collection from `token`, following 507 cuts: (answers, seconds, bytes,
    requests, the last token)."""
    answers, seconds, size, requests = [], 0.0, 0, 0
    while True:
        status, _, payload, took = report(server, path, sync_body(token))
        check(status == 207, f"sync-collection: {status} {payload[:300]!r}")
        answer = Answer(payload)
        answers.append(answer)
        seconds, size, requests = seconds + took, size + len(payload), requests + 1
        token = answer.token
        cut = [h for h, (s, _) in answer.members.items() if s == 507]
        if not cut:
            return answers, seconds, size, requests, token
        check(requests < 1000, "sync-collection never ends")


def objects_of(answers, calendar):
    """The object hrefs answered 200 by a chain of sync answers (the calendar itself not)."""
    got = set()
    for a in answers:
        got |= {h for h in a.ok() if h != calendar}
    return got


def vtodo_uid(calendar_data):
    cal = vobject.readOne(calendar_data)
    todos = [c for c in cal.getChildren() if c.name == "VTODO"]
    check(len(todos) == 1, f"one VTODO in calendar-data, not {len(todos)}")
    return todos[0].uid.value, todos[0]


# --- The benchmark ---------------------------------------------------------------------------

def load_taskd(taskd, data):
    """Imports every calendar into its list; returns the seconds taken."""
    start = time.perf_counter()
    for l, objects in data.items():
        chunk, size, created = [], 0, 0
        for i, (_, lines) in enumerate(objects):
            chunk.append(lines)
            size += sum(len(x) + 2 for x in lines)
            if size > 900_000 or i == len(objects) - 1:
                answer = taskd.api("POST", f"/api/v1/calendar.ics?spaceId={taskd.space}"
                                   f"&listId=list-{l}", calendar_text(chunk),
                                   content_type="text/calendar; charset=utf-8")
                created += answer["created"]
                chunk, size = [], 0
        check(created == len(objects), f"taskd list-{l}: {created} created of {len(objects)}")
    return time.perf_counter() - start


def verify_all(server, data, label):
    """A PROPFIND Depth 1 of every calendar lists exactly its objects."""
    for l, objects in data.items():
        path = server.calendar(l)
        status, _, payload, took = server.http.request(
            "PROPFIND", path, propfind_body(),
            {"Depth": "1", "Content-Type": "application/xml; charset=utf-8"})
        check(status == 207, f"{label} PROPFIND {path}: {status}")
        want = {path + uid + ".ics" for uid, _ in objects}
        got = Answer(payload).ok() - {path}
        check(got == want, f"{label} {path}: {len(got)} objects listed of {len(want)}")
        print(f"  {label} {path}: {len(got)} objects ({took:.2f} s)", file=sys.stderr)


def run_round(server, data, path, rnd_changes, rep, results, token_holder):
    """One repetition of the four measurements on one server."""
    name = server.label
    per_list = len(data[0])
    expected = {path + uid + ".ics" for uid, _ in data[0]}

    # (1) sync-collection from an empty token.
    answers, secs, size, n, token = sync(server, path, "")
    got = objects_of(answers, path)
    check(got == expected, f"{name} (1): {len(got)} objects of {per_list}")
    results[name]["sync-empty"].append((secs, size, n))

    # (2) 100 changes, then sync-collection from the token of (1).
    changed = rnd_changes
    puts = []
    for i in changed:
        uid, lines = data[0][i]
        body = calendar_text([vtodo_lines(uid, random.Random(f"{rep}-{i}"), f" (r{rep})")])
        status, _, payload, took = server.http.request(
            "PUT", path + uid + ".ics", body, {"Content-Type": "text/calendar; charset=utf-8"})
        check(status in (201, 204), f"{name} PUT {uid}: {status} {payload[:200]!r}")
        puts.append(took)
    results[name]["put"].append((statistics.median(puts), 0, 1))
    answers, secs, size, n, token = sync(server, path, token)
    got = objects_of(answers, path)
    want = {path + data[0][i][0] + ".ics" for i in changed}
    check(got == want, f"{name} (2): {len(got)} changed objects reported, {len(want)} made"
                       f" ({len(got - want)} not changed, {len(want - got)} missing)")
    results[name]["sync-100"].append((secs, size, n))

    # (3) calendar-multiget of 100 hrefs with calendar-data.
    picked = random.Random(f"multiget-{rep}").sample(range(per_list), MULTIGET)
    hrefs = [path + data[0][i][0] + ".ics" for i in picked]
    status, _, payload, took = report(server, path, multiget_body(hrefs))
    check(status == 207, f"{name} (3): {status}")
    answer = Answer(payload)
    check(answer.ok() == set(hrefs), f"{name} (3): {len(answer.ok())} of {MULTIGET} found")
    for href in hrefs:
        data_el = answer.members[href][1].get(q(CALDAV, "calendar-data"))
        check(data_el is not None and data_el.text, f"{name} (3): no calendar-data for {href}")
        uid, _ = vtodo_uid(data_el.text)
        check(href.endswith("/" + uid + ".ics"), f"{name} (3): {href} answered UID {uid}")
    results[name]["multiget"].append((took, len(payload), 1))
    if rep == 0:
        token_holder[name] = {h: answer.members[h][1][q(CALDAV, "calendar-data")].text
                              for h in hrefs}

    # (4) PROPFIND Depth 1 of the calendar.
    status, _, payload, took = server.http.request(
        "PROPFIND", path, propfind_body(),
        {"Depth": "1", "Content-Type": "application/xml; charset=utf-8"})
    check(status == 207, f"{name} (4): {status}")
    answer = Answer(payload)
    members = answer.ok() - {path}
    check(members == expected and path in answer.members,
          f"{name} (4): {len(members)} objects of {per_list}")
    etags = [p.get(q(DAV, "getetag")) for h, (s, p) in answer.members.items() if h != path]
    check(all(e is not None and e.text for e in etags), f"{name} (4): an object without ETag")
    results[name]["propfind"].append((took, len(payload), 1))


def same_meaning(a, b):
    """Whether two calendar-data texts of one object mean the same task (the properties
    the bench writes)."""
    _, ta = vtodo_uid(a)
    _, tb = vtodo_uid(b)
    for prop in ("uid", "summary", "status", "priority", "due", "description"):
        va = getattr(ta, prop).value if hasattr(ta, prop) else None
        vb = getattr(tb, prop).value if hasattr(tb, prop) else None
        if isinstance(va, str):
            va, vb = va.strip(), (vb or "").strip()
        if va != vb:
            return f"{prop}: {va!r} vs {vb!r}"
    ca = sorted(c for line in ta.contents.get("categories", []) for c in line.value)
    cb = sorted(c for line in tb.contents.get("categories", []) for c in line.value)
    if ca != cb:
        return f"categories: {ca} vs {cb}"
    return None


def fmt_ms(values):
    med = statistics.median(values) * 1e3
    return f"{med:,.1f} ({min(values) * 1e3:,.1f}-{max(values) * 1e3:,.1f})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--taskd", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--lists", type=int, default=10)
    parser.add_argument("--per-list", type=int, default=10_000)
    args = parser.parse_args()

    print("making the data", file=sys.stderr)
    data = make_data(args.lists, args.per_list)
    total = args.lists * args.per_list
    sizes = [len(calendar_text([lines]).encode()) for objs in data.values() for _, lines in objs]

    taskd = Taskd(args.taskd, os.path.join(args.work, "taskd-data"))
    radicale = Radicale(sys.executable, os.path.join(args.work, "radicale"))
    taskd.label, radicale.label = "taskd", "Radicale"
    mem = {}
    try:
        # taskd: empty, filled, restarted.
        taskd.start()
        for l in range(args.lists):
            taskd.api("POST", f"/api/v1/lists?spaceId={taskd.space}",
                      {"listId": f"list-{l}", "name": f"List {l}"})
        taskd.api("GET", f"/api/v1/tasks?spaceId={taskd.space}&limit=1")
        time.sleep(1)
        mem["taskd empty"] = taskd.rss()
        print(f"taskd: importing {total:,} VTODOs", file=sys.stderr)
        load_seconds = load_taskd(taskd, data)
        # The allocator gives freed pages back some seconds after a burst: the RSS is
        # taken once it has had 10 s to.
        time.sleep(10)
        mem["taskd filled"] = taskd.rss()
        taskd.stop()
        start = time.perf_counter()
        taskd.start()
        taskd.api("GET", f"/api/v1/tasks?spaceId={taskd.space}&limit=1")
        restart_seconds = time.perf_counter() - start
        time.sleep(10)
        mem["taskd restarted"] = taskd.rss()
        print(f"  imported in {load_seconds:.1f} s; restarted in {restart_seconds:.1f} s",
              file=sys.stderr)

        print(f"Radicale: writing {total:,} objects", file=sys.stderr)
        start = time.perf_counter()
        radicale.write(data)
        write_seconds = time.perf_counter() - start
        print("  radicale --verify-storage", file=sys.stderr)
        start = time.perf_counter()
        radicale.verify_storage()
        verify_seconds = time.perf_counter() - start
        radicale.start()
        time.sleep(1)
        mem["Radicale started"] = radicale.rss()
        print(f"  written in {write_seconds:.1f} s; every calendar listed:", file=sys.stderr)
        verify_all(radicale, data, "Radicale")
        verify_all(taskd, data, "taskd")

        results = {s.label: {k: [] for k in ("sync-empty", "sync-100", "multiget",
                                             "propfind", "put")}
                   for s in (taskd, radicale)}
        firsts = {}
        for rep in range(args.reps):
            changes = random.Random(f"changes-{rep}").sample(range(args.per_list), CHANGES)
            order = (taskd, radicale) if rep % 2 == 0 else (radicale, taskd)
            for server in order:
                print(f"repetition {rep + 1}/{args.reps}: {server.label}", file=sys.stderr)
                run_round(server, data, server.calendar(0), changes, rep, results, firsts)
        # The two servers answered the same data: the first multiget's objects compared.
        t_hrefs = sorted(firsts["taskd"])
        r_hrefs = sorted(firsts["Radicale"])
        for th, rh in zip(t_hrefs, r_hrefs):
            check(th.rsplit("/", 1)[1] == rh.rsplit("/", 1)[1], "multiget hrefs differ")
            diff = same_meaning(firsts["taskd"][th], firsts["Radicale"][rh])
            check(diff is None, f"{th}: taskd and Radicale differ: {diff}")
        time.sleep(10)
        mem["taskd after the runs"] = taskd.rss()
        mem["Radicale after the runs"] = radicale.rss()
    except Failed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        print("--- taskd log ---\n" + "".join(taskd.proc.log[-30:]) if taskd.proc else "",
              file=sys.stderr)
        print("--- Radicale log ---\n" + "".join(radicale.proc.log[-30:])
              if radicale.proc else "", file=sys.stderr)
        return 1
    finally:
        for server in (taskd, radicale):
            if server.proc:
                server.stop()

    version = subprocess.run([sys.executable, "-c", "import radicale; print(radicale.VERSION)"],
                             capture_output=True, text=True).stdout.strip()
    print()
    print(f"taskd vs Radicale {version}: {args.lists} calendars x {args.per_list:,} VTODOs "
          f"(objects {statistics.mean(sizes):.0f} B on average), measured on one calendar of "
          f"{args.per_list:,}, {args.reps} repetitions")
    print(f"load average (1, 5, 15 min) on {os.cpu_count()} cores at the end: "
          f"{' '.join(open('/proc/loadavg').read().split()[:3])}")
    print()
    rows = [("sync-collection, empty token", "sync-empty"),
            (f"sync-collection after {CHANGES} changes", "sync-100"),
            (f"calendar-multiget of {MULTIGET}", "multiget"),
            ("PROPFIND Depth 1", "propfind"),
            ("PUT of one object (median of 100)", "put")]
    head = ("request", "taskd ms, median (min-max)", "bytes", "Radicale ms, median (min-max)",
            "bytes", "time R/t", "R/t per rep", "goal >= 10x")
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for label, key in rows:
        t, r = results["taskd"][key], results["Radicale"][key]
        tt, rt = [x[0] for x in t], [x[0] for x in r]
        ratio = statistics.median(rt) / statistics.median(tt)
        per = [b / a for a, b in zip(tt, rt)]
        tb = f"{statistics.median(x[1] for x in t):,.0f}" if key != "put" else "-"
        rb = f"{statistics.median(x[1] for x in r):,.0f}" if key != "put" else "-"
        reqs = max(x[2] for x in t)
        if reqs > 1:
            tb += f" in {reqs} requests"
        goal = "-" if key == "put" else ("met" if ratio >= 10 else f"missed ({ratio / 10:.0%})")
        print(f"| {label} | {fmt_ms(tt)} | {tb} | {fmt_ms(rt)} | {rb} | {ratio:,.1f} | "
              f"{min(per):,.1f}-{max(per):,.1f} | {goal} |")
    print()
    empty = mem["taskd empty"]
    for what in ("taskd filled", "taskd restarted", "taskd after the runs"):
        per_task = (mem[what] - empty) / total
        print(f"{what}: RSS {mem[what] / 2**20:,.1f} MiB, {per_task:,.0f} B per task over the "
              f"empty server's {empty / 2**20:,.1f} MiB (goal <= 1,280 B: "
              f"{'met' if per_task <= 1280 else 'missed'})")
    for what in ("Radicale started", "Radicale after the runs"):
        print(f"{what}: RSS {mem[what] / 2**20:,.1f} MiB")
    print(f"taskd import of {total:,} VTODOs: {load_seconds:.1f} s; restart to the first "
          f"answer: {restart_seconds:.1f} s; Radicale files written in {write_seconds:.1f} s, "
          f"verified (item cache built) in {verify_seconds:.1f} s")
    print(f"response bytes compared: {', '.join(k for _, k in rows[:4])}; every answer was "
          f"checked complete")
    return 0


if __name__ == "__main__":
    sys.exit(main())

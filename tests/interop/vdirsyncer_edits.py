#!/usr/bin/env python3
"""Interop test: vdirsyncer + todoman with an edit on each side between syncs, and no
`conflict_resolution` in the vdirsyncer configuration, so any conflict fails the run
(docs §27: a CalDAV `PUT`'s bytes are kept and its answer carries their `ETag`).

Usage: python3 tests/interop/vdirsyncer_edits.py [path/to/taskd]

`vdirsyncer` and `todo` are taken as tests/interop/vdirsyncer_todoman.py takes them (its
configuration, minus any conflict setting, is the one here). Starts the given taskd binary
(default target/debug/taskd) on a temporary data directory, then, after discovery and a
first sync:

1. `todo new`, sync, `todo done`, sync: the task is done in the JSON API (the flow that
   was a conflict while a `PUT`'s answer had no `ETag`);
2. `todo new` and `todo done` before a sync, then a sync: done in the JSON API;
3. an edit on the server (a JSON rename), sync, then an edit of the same task locally
   (`todo edit --due --location`), sync: both reach the other side;
4. a task made through the JSON API, synced, completed locally, synced: done;
5. a delete locally (`todo delete`), sync: the task is deleted in the JSON API;
6. a delete through the JSON API, sync: the local file is gone.

After every step the local folder and the server agree octet for octet (each local file
is what a CalDAV `GET` of its object answers), and a second sync moves nothing: vdirsyncer
copies, updates and deletes nothing, and the space version stays as it was.

Every step is an assertion; the first failure prints what was seen and exits 1.
"""

import base64
import json
import os
import shutil
import sys
import tempfile
import urllib.request
from xml.etree import ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caldav_client import TOKEN, Failed, Server, by_name, check  # noqa: E402
from vdirsyncer_todoman import configure, run_tool, space_version  # noqa: E402


def dav(server, method, path, body=None, headers=()):
    """The body of a CalDAV request, as bytes."""
    req = urllib.request.Request(server.root + path, data=body, method=method)
    auth = base64.b64encode(f"anyone:{TOKEN}".encode()).decode()
    req.add_header("Authorization", f"Basic {auth}")
    for name, value in headers:
        req.add_header(name, value)
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.read()


QUERY = b"""<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
<d:prop><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR">
<c:comp-filter name="VTODO"/></c:comp-filter></c:filter></c:calendar-query>"""


def objects(server, calendar):
    """Every object of `calendar` as a `calendar-query` answers it: its text by `href`."""
    answer = dav(server, "REPORT", calendar, QUERY,
                 [("Depth", "1"), ("Content-Type", "application/xml")])
    found = {}
    for response in ElementTree.fromstring(answer).iter("{DAV:}response"):
        href = response.findtext("{DAV:}href")
        data = response.findtext(".//{urn:ietf:params:xml:ns:caldav}calendar-data")
        found[href] = data
    return found


class Flow:
    """The two sides of one sync pair, and the checks each step ends with."""

    def __init__(self, server, work, space):
        self.server, self.space = server, space
        self.vdirsyncer, self.todo, self.porcelain, self.local = configure(server, work, space)
        status, me = server.api("GET", "/api/v1/me")
        self.calendar = f"/dav/calendars/{me['data']['userId']}/{space}/"

    def sync(self, what):
        return run_tool(self.vdirsyncer + ["sync"], f"vdirsyncer sync ({what})")

    def todos(self):
        return json.loads(run_tool(self.porcelain + ["list", "--status", "ANY"], "todo list"))

    def local_id(self, summary):
        found = [t for t in self.todos() if t["summary"] == summary]
        check(len(found) == 1, f"todoman has one task '{summary}'", found)
        return str(found[0]["id"])

    def settled(self, step):
        """The sides agree octet for octet, and a second sync moves and writes nothing."""
        folder = os.path.join(self.local, self.space)
        mine = []
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), newline="") as f:
                mine.append(f.read())
        theirs = objects(self.server, self.calendar)
        check(sorted(mine) == sorted(theirs.values()),
              f"{step}: the local files are the server's objects, octet for octet",
              (mine, theirs))
        for href in theirs:
            got = dav(self.server, "GET", href).decode()
            check(got == theirs[href], f"{step}: GET {href} answers what REPORT does", got)
        before = space_version(self.server)
        out = self.sync(f"{step}, again")
        moved = [line for line in out.splitlines()
                 if "Copying" in line or "Deleting" in line or "updating" in line.lower()]
        check(moved == [], f"{step}: a second sync moves nothing", out)
        check(space_version(self.server) == before, f"{step}: and writes nothing",
              (before, space_version(self.server)))


def run(server, work):
    status, me = server.api("GET", "/api/v1/me")
    space = me["data"]["defaultSpaceId"]
    flow = Flow(server, work, space)
    run_tool(flow.vdirsyncer + ["discover", "taskd"], "vdirsyncer discover", stdin="y\n" * 10)
    flow.sync("first")
    flow.settled("first sync")

    # 1. New, sync, done, sync.
    run_tool(flow.todo + ["new", "-l", space, "First"], "todo new")
    flow.sync("new")
    check(by_name(server, "First") is not None, "1: a new local task reaches the JSON API")
    flow.settled("1: new")
    run_tool(flow.todo + ["done", flow.local_id("First")], "todo done")
    out = flow.sync("done after a sync")
    first = by_name(server, "First")
    check(first["status"] == "done", "1: done after a sync is done in the JSON API",
          (first, out))
    flow.settled("1: done")

    # 2. New and done before a sync.
    run_tool(flow.todo + ["new", "-l", space, "Second"], "todo new")
    run_tool(flow.todo + ["done", flow.local_id("Second")], "todo done")
    flow.sync("new and done")
    second = by_name(server, "Second")
    check(second is not None and second["status"] == "done",
          "2: new and done before a sync is done in the JSON API", second)
    flow.settled("2: new and done")

    # 3. An edit on the server, then one locally.
    run_tool(flow.todo + ["new", "-l", space, "Third"], "todo new")
    flow.sync("third")
    third = by_name(server, "Third")
    status, body = server.api("PATCH", f"/api/v1/tasks/{third['todoId']}",
                              {"name": "Third, renamed on the server"})
    check(status == 200, "3: a JSON rename", body)
    flow.sync("server edit")
    flow.settled("3: server edit")
    run_tool(flow.todo + ["edit", flow.local_id("Third, renamed on the server"),
                          "--due", "2030-05-01", "--location", "Office"], "todo edit")
    flow.sync("local edit")
    third = by_name(server, "Third, renamed on the server")
    check(third["dateDue"] is not None and third["dateDue"].startswith("2030-05-01"),
          "3: a local edit after a server one reaches the JSON API", third)
    kept = [o for o in objects(server, flow.calendar).values() if "LOCATION:Office" in o]
    check(len(kept) == 1, "3: with what taskd has no field for (LOCATION)", kept)
    flow.settled("3: local edit")

    # 4. A JSON task, synced, completed locally.
    status, body = server.api("POST", "/api/v1/tasks", {"todoId": "from-json", "name": "Fourth"})
    check(status == 201, "4: a task made through the JSON API", body)
    flow.sync("JSON task")
    flow.settled("4: JSON task")
    run_tool(flow.todo + ["done", flow.local_id("Fourth")], "todo done")
    flow.sync("JSON task done")
    status, body = server.api("GET", "/api/v1/tasks/from-json")
    check(body["data"]["status"] == "done", "4: a JSON task done locally is done", body)
    flow.settled("4: done")

    # 5. A delete locally.
    run_tool(flow.todo + ["delete", "--yes", flow.local_id("First")], "todo delete")
    flow.sync("local delete")
    check(by_name(server, "First") is None, "5: a local delete deletes the task")
    flow.settled("5: local delete")

    # 6. A delete on the server.
    status, body = server.api("DELETE", "/api/v1/tasks/from-json")
    check(status in (200, 204), "6: a JSON delete", body)
    flow.sync("server delete")
    names = sorted(t["summary"] for t in flow.todos())
    check("Fourth" not in names, "6: a server delete removes the local file", names)
    flow.settled("6: server delete")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/taskd"
    server = Server(binary)
    work = tempfile.mkdtemp(prefix="taskd-vdirsyncer-edits-")
    try:
        run(server, work)
    except Failed as e:
        print(f"FAILED: {e}\n--- taskd log (last lines) ---\n" + "".join(server.log[-40:]))
        return 1
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("vdirsyncer + todoman, edits on both sides: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

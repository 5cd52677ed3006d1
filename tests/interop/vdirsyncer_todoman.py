#!/usr/bin/env python3
"""Interop test: a two-way `vdirsyncer` sync between taskd's CalDAV front (docs §20) and
a local folder that `todoman` works on, as a person using todoman with taskd would.

Usage: python3 tests/interop/vdirsyncer_todoman.py [path/to/taskd]

`vdirsyncer` and `todo` are taken from the directory of the Python running this script
(the CI venv), else from PATH. Starts the given taskd binary (default target/debug/taskd) on
a temporary data directory (the server of tests/interop/caldav_client.py), makes a list and
a task through the JSON API, then:

1. `vdirsyncer discover` + `sync`: each calendar becomes a local folder, the JSON task a
   file in it;
2. `todo new` creates a task locally and `todo done` completes the JSON one; after `sync`
   the JSON API has the new task (with its summary) and the JSON one done;
3. a JSON write (a new name) shows locally (`todo --porcelain list`) after the next sync;
4. a sync with nothing changed moves nothing (vdirsyncer copies, updates and deletes
   nothing, and the space version stays as it was).

Every step is an assertion; the first failure prints what was seen and exits 1.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caldav_client import TOKEN, Failed, Server, by_name, check  # noqa: E402


def tool(name):
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name) or name


def run_tool(args, what, stdin=None):
    done = subprocess.run(args, capture_output=True, text=True, input=stdin, timeout=120)
    if done.returncode != 0:
        raise Failed(f"{what}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def space_version(server):
    status, body = server.api("GET", "/api/v1/tasks?limit=1")
    return body["spaceVersion"]


def configure(server, work, space):
    """Writes the vdirsyncer and todoman configurations of a two-way sync between taskd's
    CalDAV front and the folder `<work>/calendars` (no `conflict_resolution`: a conflict
    fails the sync), todoman's default list being `space`'s calendar; the commands
    `(vdirsyncer, todo, todo --porcelain, local folder)`."""
    local = os.path.join(work, "calendars")
    config = os.path.join(work, "vdirsyncer.conf")
    with open(config, "w") as f:
        f.write(f"""[general]
status_path = "{os.path.join(work, 'status')}/"

[pair taskd]
a = "local"
b = "remote"
collections = ["from b"]

[storage local]
type = "filesystem"
path = "{local}/"
fileext = ".ics"

[storage remote]
type = "caldav"
url = "{server.root}/dav/"
username = "anyone"
password = "{TOKEN}"
item_types = ["VTODO"]
""")
    todo_config = os.path.join(work, "todoman.py")
    with open(todo_config, "w") as f:
        f.write(f'path = "{local}/*"\ndate_format = "%Y-%m-%d"\ntime_format = "%H:%M"\n'
                f'default_list = "{space}"\n')
    vdirsyncer = [tool("vdirsyncer"), "-c", config]
    # `--porcelain` only for reading: with it, `new` reads an absent priority as '' (todoman 4.x).
    todo = [tool("todo"), "-c", todo_config]
    return vdirsyncer, todo, todo + ["--porcelain"], local


def run(server, work):
    status, body = server.api("POST", "/api/v1/lists", {"listId": "home", "name": "Home"})
    check(status == 201, "a list made through the JSON API", body)
    status, body = server.api("POST", "/api/v1/tasks", {"todoId": "from-json", "name": "From JSON"})
    check(status == 201, "a task made through the JSON API", body)
    status, me = server.api("GET", "/api/v1/me")
    space = me["data"]["defaultSpaceId"]
    vdirsyncer, todo, porcelain, local = configure(server, work, space)

    run_tool(vdirsyncer + ["discover", "taskd"], "vdirsyncer discover", stdin="y\n" * 10)
    run_tool(vdirsyncer + ["sync"], "vdirsyncer sync (first)")
    folders = sorted(os.listdir(local))
    check(folders == sorted([space, f"{space}.home"]), "each calendar is a local folder", folders)
    files = os.listdir(os.path.join(local, space))
    check(files == ["from-json.ics"], "the JSON task is a local file", files)

    run_tool(todo + ["new", "-l", space, "Made with todoman"], "todo new")
    listed = json.loads(run_tool(porcelain + ["list", "--status", "ANY"], "todo list"))
    json_made = [t for t in listed if t["summary"] == "From JSON"]
    check(len(json_made) == 1, "todoman sees the JSON task", listed)
    run_tool(todo + ["done", str(json_made[0]["id"])], "todo done")
    out = run_tool(vdirsyncer + ["sync"], "vdirsyncer sync (local changes)")
    made = by_name(server, "Made with todoman")
    check(made is not None and made["listId"] is None,
          "a task made with todoman is in the JSON API after the sync", out)
    done = by_name(server, "From JSON")
    check(done["status"] == "done" and done["completedAt"] is not None,
          "a task completed with todoman is done in the JSON API", done)

    status, body = server.api("PATCH", f"/api/v1/tasks/{made['todoId']}",
                              {"name": "Renamed in JSON"})
    check(status == 200, "a JSON write", body)
    run_tool(vdirsyncer + ["sync"], "vdirsyncer sync (JSON change)")
    listed = json.loads(run_tool(porcelain + ["list", "--status", "ANY"], "todo list"))
    names = sorted(t["summary"] for t in listed)
    check(names == ["From JSON", "Renamed in JSON"], "the JSON write is seen locally", names)

    before = space_version(server)
    out = run_tool(vdirsyncer + ["sync"], "vdirsyncer sync (nothing changed)")
    moved = [line for line in out.splitlines()
             if "Copying" in line or "Deleting" in line or "updating" in line.lower()]
    check(moved == [], "a sync with nothing changed moves nothing", out)
    check(space_version(server) == before, "and writes nothing", (before, space_version(server)))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/taskd"
    server = Server(binary)
    work = tempfile.mkdtemp(prefix="taskd-vdirsyncer-")
    try:
        run(server, work)
    except Failed as e:
        print(f"FAILED: {e}\n--- taskd log (last lines) ---\n" + "".join(server.log[-40:]))
        return 1
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("vdirsyncer + todoman interop: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

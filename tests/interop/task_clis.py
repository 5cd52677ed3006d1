#!/usr/bin/env python3
"""Interop test: two command-line task clients from PyPI against taskd's CalDAV front
(docs §20, §27), each adding, completing and deleting a task, checked in the JSON API.

Usage: python3 tests/interop/task_clis.py [path/to/taskd]

- `plann` 1.3 (the `caldav` library's CLI): `add todo`, `select --todo ... complete`,
  `select --todo ... delete --multi-delete`, with `list-calendars` and `select list`;
- `caldav-tasks-api` 1.8: its CLI `list-lists`, `add-task` (with a priority) and
  `list-latest-tasks`. Its CLI has no command to complete or delete a task, so those two
  steps go through its own Python API (`TasksAPI.update_task`, `delete_task_by_id`), which
  is what its CLI is a front of. It is started with `--no-nextcloud-mode` (else it appends
  Nextcloud's `remote.php/dav/` to the URL) and logs under a temporary `HOME`.

The commands are taken from the directory of the Python running this script (the CI
venv), else from PATH. Every step is an assertion; the first failure prints what was seen
and exits 1.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caldav_client import TOKEN, Failed, Server, by_name, check  # noqa: E402
from vdirsyncer_todoman import tool  # noqa: E402


def run_cli(args, what, env):
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise Failed(f"{what}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def plann(server, env):
    base = [tool("plann"), "--skip-config", "--caldav-url", f"{server.root}/dav/",
            "--caldav-user", "anyone", "--caldav-pass", TOKEN]
    out = run_cli(base + ["list-calendars"], "plann list-calendars", env)
    check("/dav/calendars/" in out, "plann: finds the calendars", out)
    run_cli(base + ["add", "todo", "Made with plann"], "plann add todo", env)
    made = by_name(server, "Made with plann")
    check(made is not None and made["status"] != "done", "plann: a todo it adds is a task",
          made)
    out = run_cli(base + ["select", "--todo", "list"], "plann select list", env)
    check("Made with plann" in out, "plann: lists it", out)
    run_cli(base + ["select", "--todo", "--summary", "Made with plann", "complete"],
            "plann complete", env)
    done = by_name(server, "Made with plann")
    check(done["status"] == "done" and done["completedAt"] is not None,
          "plann: a todo it completes is done", done)
    run_cli(base + ["select", "--todo", "--include-completed", "--summary", "Made with plann",
                    "delete", "--multi-delete"], "plann delete", env)
    check(by_name(server, "Made with plann") is None, "plann: a todo it deletes is deleted")
    gone = by_name(server, "Made with plann", deleted=True)
    check(gone is not None and gone["isDeleted"], "plann: softly (docs §4)", gone)


def caldav_tasks_api(server, env, list_uid):
    cli = [tool("caldav-tasks-api")]
    login = ["--url", f"{server.root}/dav/", "--username", "anyone", "--password", TOKEN,
             "--no-nextcloud-mode"]
    lists = json.loads(run_cli(cli + ["list-lists"] + login, "caldav-tasks-api list-lists", env))
    check(any(entry["uid"] == list_uid for entry in lists),
          "caldav-tasks-api: lists the calendars", lists)
    run_cli(cli + ["add-task"] + login + ["--list-uid", list_uid, "--summary",
                                          "Made with caldav-tasks-api", "--priority", "2"],
            "caldav-tasks-api add-task", env)
    made = by_name(server, "Made with caldav-tasks-api")
    check(made is not None and made["isImportant"],
          "caldav-tasks-api: a task it adds is a task (PRIORITY 2 is important)", made)
    latest = json.loads(run_cli(cli + ["list-latest-tasks"] + login + ["--list-uid", list_uid],
                                "caldav-tasks-api list-latest-tasks", env))
    check(any(t["summary"] == "Made with caldav-tasks-api" for t in latest),
          "caldav-tasks-api: lists it", latest)
    # Its CLI neither completes nor deletes: its Python API does (see the module doc).
    from caldav_tasks_api import TasksAPI

    api = TasksAPI(url=f"{server.root}/dav/", username="anyone", password=TOKEN,
                   nextcloud_mode=False)
    api.load_remote_data()
    task = next(t for t in api.get_tasks_by_list_uid(list_uid)
                if t.summary == "Made with caldav-tasks-api")
    task.completed = True
    api.update_task(task)
    done = by_name(server, "Made with caldav-tasks-api")
    check(done["status"] == "done", "caldav-tasks-api: a task it completes is done", done)
    check(api.delete_task_by_id(task.uid, list_uid), "caldav-tasks-api: deletes it")
    check(by_name(server, "Made with caldav-tasks-api") is None,
          "caldav-tasks-api: a task it deletes is deleted")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/taskd"
    server = Server(binary)
    home = tempfile.mkdtemp(prefix="taskd-task-clis-")
    env = dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, "state"),
               XDG_CONFIG_HOME=os.path.join(home, "config"))
    os.environ.update(env)  # caldav-tasks-api logs where its Python API runs too
    try:
        status, me = server.api("GET", "/api/v1/me")
        space = me["data"]["defaultSpaceId"]
        plann(server, env)
        caldav_tasks_api(server, env, space)
    except Failed as e:
        print(f"FAILED: {e}\n--- taskd log (last lines) ---\n" + "".join(server.log[-40:]))
        return 1
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)
    print("plann and caldav-tasks-api interop: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

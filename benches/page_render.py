"""Time to first render of 1,000 tasks on the page (docs §26, issue 44), and its weight.

    python benches/page_render.py [target/release/taskd] [--tasks 1000] [--runs 7]

It starts the given taskd (a release build) on a temporary data directory, port 0, makes
a space, a write token for it and the tasks through the API (batches of 100: a root with
four subtasks in turn, one task in seven overdue), then opens the page in headless
Chromium (`/usr/bin/chromium` or $TASKD_CHROMIUM, driven by Playwright for Python; no
browser is downloaded) with the token and the space in the page's storage, as a user who
pasted them before. Each run opens a new tab at `/` and measures, in the page's own clock
(`performance.now()`, 0 at navigation start):

- `rows`: when the last of the tasks' rows is in the document (a MutationObserver that
  an init script installs before the page's scripts run);
- `painted`: the second animation frame after that, by when the rows have been painted.

One run first warms the server and the browser and is not counted; the median and max of
the others are printed, with the bytes of every file of the page (all but `/api/`
answers) and of the API answers the page read.
"""

import argparse
import datetime
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "interop"))
from taskd_server import Server  # noqa: E402

from playwright.sync_api import sync_playwright  # noqa: E402

TOKEN = "page-render-bench-token-0123456789abcdef"
CHROMIUM = os.environ.get("TASKD_CHROMIUM") or "/usr/bin/chromium"

# Installed before the page's own scripts on every navigation: the page's storage, and the
# observer that notes when the rows are there and when they have been painted.
INIT = """
localStorage.setItem("taskd.token", %(token)s);
localStorage.setItem("taskd.space", %(space)s);
window.__bench = {};
new MutationObserver((_, observer) => {
  if (document.querySelectorAll("#tasks > li.task").length < %(tasks)d) return;
  observer.disconnect();
  window.__bench.rows = performance.now();
  requestAnimationFrame(() => requestAnimationFrame(() => {
    window.__bench.painted = performance.now();
  }));
}).observe(document, {childList: true, subtree: true});
"""


def api(server, method, path, body, expect):
    status, reply = server.api(method, path, body)
    assert status == expect, (method, path, status, reply)
    return reply


def fill(server, tasks):
    """A space with `tasks` tasks and a write token for it: (space id, token)."""
    space = api(server, "POST", "/api/v1/spaces", {"name": "Render bench"}, 201)["data"]["spaceId"]
    token = api(server, "POST", "/api/v1/tokens",
                {"name": "render bench", "access": "write", "spaceIds": [space]},
                201)["data"]["token"]
    now = datetime.datetime.now(datetime.timezone.utc)
    operations = []
    for i in range(tasks):
        body = {"todoId": f"task-{i:05}", "name": f"Task number {i}"}
        if i % 5:
            body["parentId"] = f"task-{i - i % 5:05}"
        days = -3 if i % 7 == 0 else i % 30 + 1
        body["dateDue"] = (now + datetime.timedelta(days=days)).strftime("%Y-%m-%dT09:00:00Z")
        operations.append({"method": "POST", "path": "/api/v1/tasks", "body": body})
    for start in range(0, tasks, 100):
        api(server, "POST", f"/api/v1/batch?spaceId={space}",
            {"operations": operations[start:start + 100]}, 200)
    return space, token


def one_run(context, root, tasks):
    """Opens the page in a new tab: ({rows, painted} in ms, the responses it got)."""
    page = context.new_page()
    responses = []
    page.on("response", lambda r: responses.append(r))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(root + "/")
    page.wait_for_function("() => window.__bench && window.__bench.painted", timeout=30_000)
    times = page.evaluate("() => window.__bench")
    shown = page.locator("#tasks > li.task").count()
    assert shown == tasks, f"{shown} rows for {tasks} tasks"
    assert not errors, errors
    # (the live stream's answer never ends: its body is not waited for)
    sizes = [(r.url, len(r.body())) for r in responses
             if r.request.method == "GET" and "/api/v1/live" not in r.url]
    page.close()
    return times, sizes


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("binary", nargs="?", default="target/release/taskd")
    args.add_argument("--tasks", type=int, default=1000)
    args.add_argument("--runs", type=int, default=7)
    parsed = args.parse_args()
    server = Server(parsed.binary, TOKEN, "taskd-render-")
    try:
        space, token = fill(server, parsed.tasks)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"],
                                        timeout=30_000)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.add_init_script(INIT % {"token": json.dumps(token),
                                                "space": json.dumps(space),
                                                "tasks": parsed.tasks})
                one_run(context, server.root, parsed.tasks)  # warm-up, not counted
                runs = [one_run(context, server.root, parsed.tasks)
                        for _ in range(parsed.runs)]
            finally:
                browser.close()
    finally:
        server.stop()

    print(f"{parsed.tasks} tasks ({parsed.tasks // 5} roots with 4 subtasks each), "
          f"{parsed.runs} runs after a warm-up, headless {CHROMIUM}")
    for key, what in [("rows", "rows in the document"), ("painted", "rows painted")]:
        values = [times[key] for times, _ in runs]
        print(f"  {what}: median {statistics.median(values):.0f} ms, max {max(values):.0f} ms "
              f"(all: {', '.join(f'{v:.0f}' for v in values)})")
    _, sizes = runs[-1]
    files = [(url, size) for url, size in sizes if "/api/" not in url]
    answers = sum(size for url, size in sizes if "/api/" in url)
    for url, size in files:
        print(f"  file {url.replace(server.root, '')}: {size:,} bytes")
    print(f"  the page's files: {sum(s for _, s in files):,} bytes in all (goal: under 200 KB); "
          f"API answers read: {answers:,} bytes")


if __name__ == "__main__":
    main()

"""The page (docs §26) in a real browser: Playwright for Python driving the system Chromium
(`/usr/bin/chromium`, or $TASKD_CHROMIUM; no browser is downloaded).

    python tests/page/browser.py [target/debug/taskd] [--screenshot PATH]

It starts the given taskd on a temporary data directory (port 0), opens `/`, pastes the
token, adds a task, checks it off, makes a task through the API and waits for the page to
show it within a second, reloads and finds the same state, un-checks, indents, outdents,
reorders, deletes, edits, follows a list live, reconnects after the server restarts,
opens the shortcuts and shows an error's `detail`. Last, it adds a small project (a task
with subtasks) and an overdue task through the API and, with `--screenshot PATH` (or
$TASKD_PAGE_SCREENSHOT), saves a PNG of the page showing them at a desktop width. Exits
non-zero on any failure; every wait is bounded, and the whole run is stopped after 120 s.
"""

import argparse
import datetime

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from taskd_server import Server  # noqa: E402

from playwright.sync_api import expect, sync_playwright  # noqa: E402

TOKEN = "page-browser-test-token-0123456789abcdef"
CHROMIUM = os.environ.get("TASKD_CHROMIUM") or "/usr/bin/chromium"
WAIT_MS = 10_000


def main(binary, screenshot):
    signal.signal(signal.SIGALRM, lambda *_: sys.exit("browser test: over 120 s, stopped"))
    signal.alarm(120)
    server = Server(binary, TOKEN, "taskd-page-")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"],
                                        timeout=30_000)
            try:
                run(browser, server, screenshot)
            finally:
                browser.close()
    except Exception:
        sys.stderr.write("".join(server.log[-30:]))
        raise
    finally:
        server.stop()
    print("browser test: ok")


def run(browser, server, screenshot):
    page = browser.new_page(viewport={"width": 390, "height": 800})  # a phone's width
    page.set_default_timeout(WAIT_MS)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # (the browser logs each non-2xx answer, e.g. the 400 below, as a console error)
    page.on("console", lambda m: m.type == "error"
            and not m.text.startswith("Failed to load resource") and errors.append(m.text))
    outside = []
    page.on("request", lambda r: r.url.startswith(server.root) or outside.append(r.url))

    page.goto(server.root + "/")
    page.get_by_label("API token").fill(TOKEN)
    page.get_by_label("Use this token").click()
    expect(page.locator("#main")).to_be_visible()
    expect(page.get_by_label("Space")).to_have_value(default_space(server))
    expect(page.locator("#live")).to_have_text("Live")  # the §24 stream, not the fallback

    # Add a task through the page; the API has it.
    page.get_by_label("New task name").fill("Buy milk")
    page.get_by_label("New task name").press("Enter")
    milk = page.locator("li.task", has_text="Buy milk")
    expect(milk).to_have_count(1)
    tasks = api_tasks(server)
    assert [t["name"] for t in tasks] == ["Buy milk"], tasks

    # Check it off: `done` on the server.
    page.get_by_label("Done: Buy milk").check()
    expect(milk).to_have_class(re.compile(r"\bdone\b"))
    wait_for(lambda: api_tasks(server)[0]["status"] == "done", "status done on the server")

    # A task made elsewhere shows within a second.
    status, body = server.api("POST", "/api/v1/tasks", {"name": "From the API"})
    assert status == 201, (status, body)
    made = time.monotonic()
    expect(page.locator("li.task", has_text="From the API")).to_have_count(1, timeout=3_000)
    took = time.monotonic() - made
    assert took < 1.0, f"the API's task took {took:.2f} s to show"

    # Reload: the token is kept, and the page shows the same state.
    page.reload()
    expect(page.locator("li.task")).to_have_count(2)
    expect(page.get_by_label("Done: Buy milk")).to_be_checked()
    expect(page.get_by_label("Done: From the API")).not_to_be_checked()

    # Un-checking sets the status it had before (`null` for a new task; "waiting" here).
    page.get_by_label("Done: Buy milk").uncheck()
    wait_for(lambda: api_tasks(server)[0]["status"] is None, "status null again")
    other = api_tasks(server)[1]
    status, body = server.api("PATCH", f"/api/v1/tasks/{other['id']}", {"status": "waiting"})
    assert status == 200, (status, body)
    expect(page.locator("li.task", has_text="From the API")).to_contain_text("waiting")
    page.get_by_label("Done: From the API").check()
    wait_for(lambda: api_tasks(server)[1]["status"] == "done", "done on the server")
    expect(page.get_by_label("Done: From the API")).to_be_checked()
    page.get_by_label("Done: From the API").uncheck()
    wait_for(lambda: api_tasks(server)[1]["status"] == "waiting", "waiting again")

    # Indent under the previous sibling, outdent, delete.
    milk_id, other_id = api_tasks(server)[0]["id"], other["id"]
    page.get_by_label("Indent From the API").click()
    wait_for(lambda: api_tasks(server)[1]["parentId"] == milk_id, "parentId set")
    expect(page.locator(f'li.task[data-id="{other_id}"]')).to_have_css("padding-left", "24px")
    page.get_by_label("Outdent From the API").click()
    wait_for(lambda: api_tasks(server)[1]["parentId"] is None, "parentId cleared")
    page.get_by_label("Move up From the API").click()
    wait_for(lambda: [t["name"] for t in api_tasks(server)] == ["From the API", "Buy milk"],
             "the new order on the server")
    expect(page.locator("li.task").first).to_contain_text("From the API")
    page.get_by_label("Delete From the API").click()
    expect(page.locator("li.task")).to_have_count(1)
    assert [t["name"] for t in api_tasks(server)] == ["Buy milk"]

    # Undo (§23) takes the delete back, and the page shows the task again.
    page.get_by_label("Undo my last change").click()
    expect(page.locator("li.task", has_text="From the API")).to_have_count(1)
    wait_for(lambda: len(api_tasks(server)) == 2, "the delete undone on the server")
    page.get_by_label("Delete From the API").click()
    expect(page.locator("li.task")).to_have_count(1)

    # Edit name, notes and due date.
    page.get_by_label("Edit Buy milk").click()
    page.get_by_label("Name", exact=True).fill("Buy oat milk")
    page.get_by_label("Notes").fill("two litres")
    page.get_by_label("Due date").fill("2030-01-02T09:30")
    page.get_by_label("Save the task").click()
    expect(page.locator("li.task", has_text="Buy oat milk")).to_have_count(1)
    task = api_tasks(server)[0]
    assert task["name"] == "Buy oat milk" and task["notesMarkdown"] == "two litres", task
    assert task["dateDue"].startswith("2030-01-02"), task

    # A list one pick away; the stream follows it (a task made in it shows within a second).
    status, body = server.api("POST", "/api/v1/lists", {"listId": "errands", "name": "Errands"})
    assert status == 201, (status, body)
    page.reload()
    page.get_by_label("List or view").select_option("list:errands")
    expect(page.locator("li.task")).to_have_count(0)
    expect(page.locator("#live")).to_have_text("Live")
    status, body = server.api("POST", "/api/v1/tasks", {"name": "Stamps", "listId": "errands"})
    assert status == 201, (status, body)
    made = time.monotonic()
    expect(page.locator("li.task", has_text="Stamps")).to_have_count(1, timeout=3_000)
    assert time.monotonic() - made < 1.0, "the list's task took over a second"
    expect(page.locator("li.task")).to_have_count(1)
    page.get_by_label("List or view").select_option("")
    expect(page.locator("li.task")).to_have_count(2)

    # Shortcuts: `?` lists them.
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("?")
    expect(page.get_by_role("dialog")).to_be_visible()
    page.get_by_label("Close the shortcuts").click()

    # An error shows the API's `detail`: a name over the limit.
    page.get_by_label("New task name").fill("x" * 1001)
    page.get_by_label("Add the task").click()
    expect(page.get_by_role("alert")).to_be_visible()
    assert "name" in page.get_by_role("alert").inner_text(), page.get_by_role("alert").inner_text()

    # A dropped connection: the server stops and comes back on the same port and data; the
    # page reconnects (backoff) and shows a task made after it.
    server.restart()
    expect(page.locator("#live")).to_have_text("Live", timeout=15_000)
    status, body = server.api("POST", "/api/v1/tasks", {"name": "After a restart"})
    assert status == 201, (status, body)
    expect(page.locator("li.task", has_text="After a restart")).to_have_count(1, timeout=3_000)

    show_a_project(page, server, screenshot)

    # Every control has an accessible name.
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button, input, select')]
        .filter(e => !e.getAttribute('aria-label')).map(e => e.outerHTML)""")
    assert not unnamed, unnamed
    assert not outside, f"requests to another host: {outside}"
    assert not errors, f"errors in the page: {errors}"


def show_a_project(page, server, path):
    """Adds a task with two subtasks (one done) and an overdue task through the API; the
    page shows the subtasks indented and marks the overdue one. With `path`, saves a PNG
    of the page there."""
    def create(body):
        status, reply = server.api("POST", "/api/v1/tasks", body)
        assert status == 201, (status, reply)
        return reply["data"]["id"]

    now = datetime.datetime.now(datetime.timezone.utc)
    stamp = lambda days: (now + datetime.timedelta(days=days)).strftime("%Y-%m-%dT09:00:00Z")
    trip = create({"name": "Plan the trip", "dateDue": stamp(6)})
    create({"name": "Book the train", "parentId": trip, "status": "done"})
    create({"name": "Pack the bags", "parentId": trip, "dateDue": stamp(5)})
    create({"name": "Pay the rent", "dateDue": stamp(-2)})
    page.set_viewport_size({"width": 760, "height": 460})
    page.reload()
    rent = page.locator("li.task", has_text="Pay the rent")
    expect(rent.locator(".overdue")).to_have_text("overdue")
    expect(page.locator("li.task", has_text="Plan the trip").locator(".overdue")).to_have_count(0)
    expect(page.locator("li.task", has_text="Pack the bags")).to_have_css("padding-left", "24px")
    expect(page.locator("#live")).to_have_text("Live")
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        page.screenshot(path=path, full_page=True)
        print(f"browser test: screenshot of the page in {path}")


def default_space(server):
    status, body = server.api("GET", "/api/v1/me")
    assert status == 200, (status, body)
    return body["data"]["defaultSpaceId"]


def api_tasks(server):
    status, body = server.api("GET", "/api/v1/tasks?limit=100")
    assert status == 200, (status, body)
    return body["data"]


def wait_for(check, what, limit=5.0):
    end = time.monotonic() + limit
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


if __name__ == "__main__":
    args = argparse.ArgumentParser(description="The page in a real browser (docs §26)")
    args.add_argument("binary", nargs="?", default="target/debug/taskd")
    args.add_argument("--screenshot", default=os.environ.get("TASKD_PAGE_SCREENSHOT"),
                      help="save a PNG of the page here")
    parsed = args.parse_args()
    main(parsed.binary, parsed.screenshot)

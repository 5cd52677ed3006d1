#!/usr/bin/env python3
"""Interop test: taskd's CalDAV front (docs §20) driven by the PyPI `caldav` library.

Usage: python3 tests/interop/caldav_client.py [path/to/taskd]

Starts the given taskd binary (default target/debug/taskd) on a temporary data directory
with a known default token, makes a second list through the JSON API (so the space has two
calendars besides the one of tasks without a list), then, as a calendar app would, with
`caldav.DAVClient(url=<root>/, username=<anything>, password=<token>)`:

- discovers the principal from the root URL and lists the calendars;
- saves a todo whose UID has an `@` (`save_todo`), and finds it in the JSON API with its
  fields and by `object_by_uid`;
- searches todos, without and with the completed ones;
- completes a todo (`complete()`), updates a summary (`save()`), and sees both in the JSON
  API;
- syncs by token (`objects_by_sync_token`): a JSON write shows at the next sync, and a sync
  with nothing changed reports nothing;
- saves with a stale `If-Match` (the library's `save(if_schedule_tag_match=...)` is not an
  ETag precondition, so the request is sent through the library's own `DAVClient.put`) and
  expects 412;
- moves a todo to the other calendar as clients do (a save in the new calendar, then a
  delete in the old one): one task, its `listId` changed;
- deletes a todo: the task is soft-deleted in the JSON API.

Every step is an assertion; the first failure prints what was seen and exits 1.
"""

import os
import sys
from datetime import datetime, timezone

try:
    import caldav
    from caldav.lib import error as caldav_error
except ImportError:  # pragma: no cover
    sys.exit("caldav is not installed: pip install caldav")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taskd_server  # noqa: E402

TOKEN = "caldav-interop-token-0123456789abcdef"


class Server(taskd_server.Server):
    """taskd with the default token of these scripts."""

    def __init__(self, binary):
        super().__init__(binary, TOKEN, "taskd-caldav-")


class Failed(Exception):
    pass


def check(condition, what, seen=None):
    if not condition:
        raise Failed(f"{what}" + (f"\n  seen: {seen!r}" if seen is not None else ""))
    print(f"ok: {what}")


def tasks(server, deleted=False):
    """Every task of the default space by todoId."""
    query = "?limit=100" + ("&includeDeleted=true" if deleted else "")
    status, body = server.api("GET", "/api/v1/tasks" + query)
    if status != 200:
        raise Failed(f"the JSON API does not list tasks: {status} {body}")
    return {t["todoId"]: t for t in body["data"]}


def by_name(server, name, deleted=False):
    found = [t for t in tasks(server, deleted).values() if t["name"] == name]
    return found[0] if len(found) == 1 else None


def summary(obj):
    return str(obj.icalendar_component.get("summary"))


def uid(obj):
    return str(obj.icalendar_component.get("uid"))


def run(server):
    status, body = server.api("POST", "/api/v1/lists", {"listId": "errands", "name": "Errands"})
    check(status == 201, "a second list made through the JSON API", body)
    status, me = server.api("GET", "/api/v1/me")
    space = me["data"]["defaultSpaceId"]

    client = caldav.DAVClient(url=server.root + "/", username="anyone", password=TOKEN)
    principal = client.principal()
    check(principal is not None and "/dav/principals/" in str(principal.url),
          "principal discovered from the root URL", str(principal.url))
    calendars = principal.calendars()
    names = sorted(str(c.url).rstrip("/").rsplit("/", 1)[1] for c in calendars)
    check(names == sorted([space, f"{space}.errands"]), "both calendars listed", names)
    loose = next(c for c in calendars if str(c.url).rstrip("/").endswith(space))
    errands = next(c for c in calendars if str(c.url).rstrip("/").endswith(".errands"))
    check(errands.get_display_name() == "Errands", "a list's calendar has its name",
          errands.get_display_name())

    # Save, with a UID as clients make them.
    the_uid = "20261127T101500-4242@phone.example.org"
    first = loose.save_todo(summary="Buy milk", uid=the_uid, priority=1,
                            due=datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc))
    made = by_name(server, "Buy milk")
    check(made is not None, "the saved todo is a task in the JSON API", tasks(server))
    check(made["isImportant"] is True and made["dateDue"] == "2026-12-01T09:00:00.000Z",
          "with its priority and due date", made)
    check(made["todoId"] != the_uid, "a UID that is no id gets a new todoId", made["todoId"])
    again = loose.object_by_uid(the_uid)
    check(uid(again) == the_uid, "found again by its UID, kept as sent", uid(again))
    second = loose.save_todo(summary="Call mum", uid="call-mum")
    check(by_name(server, "Call mum")["todoId"] == "call-mum",
          "an id-shaped UID is the todoId", tasks(server))

    # Search, complete, update.
    found = sorted(summary(t) for t in loose.search(todo=True))
    check(found == ["Buy milk", "Call mum"], "search finds the open todos", found)
    second.complete()
    check(by_name(server, "Call mum")["status"] == "done", "complete() finishes the task",
          by_name(server, "Call mum"))
    check(by_name(server, "Call mum")["completedAt"] is not None, "with a completedAt",
          by_name(server, "Call mum"))
    found = sorted(summary(t) for t in loose.search(todo=True))
    check(found == ["Buy milk"], "search without completed leaves it out", found)
    found = sorted(summary(t) for t in loose.search(todo=True, include_completed=True))
    check(found == ["Buy milk", "Call mum"], "search with completed finds it", found)
    first = loose.object_by_uid(the_uid)
    first.icalendar_component["summary"] = "Buy oat milk"
    first.save()
    check(by_name(server, "Buy oat milk") is not None, "an updated summary reaches the task",
          tasks(server))

    # Sync by token.
    synced = loose.objects_by_sync_token(load_objects=True)
    token = synced.sync_token
    check(len(list(synced)) == 2, "a first sync lists every object", list(synced))
    unchanged = loose.objects_by_sync_token(sync_token=token, load_objects=False)
    check(len(list(unchanged)) == 0, "a sync with nothing changed reports nothing",
          list(unchanged))
    status, body = server.api("PATCH", "/api/v1/tasks/call-mum", {"name": "Call mum today"})
    check(status == 200, "a JSON write", body)
    changed = loose.objects_by_sync_token(sync_token=unchanged.sync_token, load_objects=True)
    got = [summary(o) for o in changed]
    check(got == ["Call mum today"], "the JSON write shows at the next sync", got)

    # If-Match: a stale ETag is refused.
    current = loose.object_by_uid("call-mum")
    reply = client.put(str(current.url), current.data.replace("Call mum today", "Stale"),
                       {"Content-Type": "text/calendar; charset=utf-8",
                        "If-Match": '"1"'})
    check(reply.status == 412, "a PUT with a stale If-Match is 412", reply.status)
    check(by_name(server, "Stale") is None, "and changes nothing", tasks(server))

    # Move, as clients do: saved in the new calendar, then deleted in the old one.
    moving = loose.object_by_uid(the_uid)
    errands.save_todo(ical=moving.data)
    try:
        moving.delete()
    except caldav_error.NotFoundError:
        # The object already left this calendar with the PUT (docs §20).
        print("note: the DELETE in the old calendar after the move was a 404")
    moved = by_name(server, "Buy oat milk")
    check(moved is not None and moved["listId"] == "errands" and not moved["isDeleted"],
          "a move between calendars changes the task's listId", moved)
    found = [uid(t) for t in errands.search(todo=True)]
    check(found == [the_uid], "the moved todo is in the new calendar", found)
    found = sorted(uid(t) for t in loose.search(todo=True, include_completed=True))
    check(found == ["call-mum"], "and no longer in the old one", found)

    # Delete.
    errands.object_by_uid(the_uid).delete()
    gone = by_name(server, "Buy oat milk", deleted=True)
    check(gone is not None and gone["isDeleted"] is True, "a delete soft-deletes the task",
          gone)
    try:
        errands.object_by_uid(the_uid)
        check(False, "a deleted todo is not found by UID")
    except caldav_error.NotFoundError:
        print("ok: a deleted todo is not found by UID")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/taskd"
    server = Server(binary)
    try:
        run(server)
    except Failed as e:
        print(f"FAILED: {e}\n--- taskd log (last lines) ---\n" + "".join(server.log[-40:]))
        return 1
    finally:
        server.stop()
    print("caldav interop: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

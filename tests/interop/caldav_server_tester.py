#!/usr/bin/env python3
"""Interop grade: caldav-server-tester's task checks against a CalDAV server (issue 30).

Usage:
    python3 tests/interop/caldav_server_tester.py path/to/taskd
    python3 tests/interop/caldav_server_tester.py --url URL --user USER --password PASSWORD \
        [--calendar DISPLAYNAME]
    (either form) [--json FILE]

With a binary, starts it on a temporary data directory with a known default token, as
tests/interop/caldav_client.py does (its `Server` is reused), and grades it; with `--url`,
grades the server already running there (Radicale, or a taskd started by hand) and starts
nothing. `--calendar` names an existing calendar to hold the test objects (taskd makes no
calendars from a client, docs §20); without it the tester makes its own (MKCALENDAR) and
deletes it afterwards.

caldav-server-tester 1.7.0's CLI assumes events: its preparation PUTs VEVENTs first and stops
on a server that stores only VTODOs. So this script drives its Python API
(`ServerQuirkChecker`, the `Check` classes of `caldav_server_tester.checks`) with:

- a task-only preparation, `TaskOnlyPrepare`: the tester's own `PrepareCalendar` with its
  event and journal saves left out (they return an unsaved stand-in) and its event-only URL
  probes (`get-by-url`, `stable-url`, `url.encode-at`, all made on a VEVENT) not run, so the
  calendar holds exactly the tester's task fixtures;
- the checks that concern tasks (`TASK_CHECKS`): their features about VTODOs are graded;
  features a mixed check probes with its own VEVENTs are shown, not graded;
- the protocol checks whose probe object happens to be a VEVENT (ETags and preconditions,
  UID conflicts, overwrites, sync tokens, write visibility, RELATED-TO; `VTODO_CHECKS`),
  run with each object they PUT sent as a VTODO: `BEGIN/END:VEVENT` become `VTODO`,
  `DTEND` becomes `DUE`, nothing else changes. What they grade is about the protocol,
  not the component, so a task server can be held to it;
- the discovery checks (no objects at all).

Checks about events, journals, making calendars (MKCALENDAR), calendar properties,
scheduling, free-busy and principal search are not run (see `NOT_RUN`).

Each feature gets the tester's support level: `full` (and `quirk`, which the tester uses for
"works, with a detour the library takes") passes; `unsupported` is unsupported; `broken`,
`fragile` and `ungraceful` fail; `unknown` means the tester could not probe it. The script
prints a table of check, feature, level (this run, and Radicale 3.9.0's from `RADICALE`),
the counts, and exits 1 when a feature that passes on Radicale does not pass here, unless
`CONTRACT_DIFFERENCES` names it (a behaviour docs §20 requires of taskd).

`RADICALE` is kept here rather than computed by starting Radicale each time, so that CI
grades taskd alone: it is the output of `--json` for a run against Radicale 3.9.0 (see
benches/RESULTS.md for the command), pasted as it came; re-run and paste to refresh it.
"""

import argparse
import json
import logging
import os
import re
import sys
from contextlib import contextmanager

# This file's own name is the package's: import the package, not this script.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
try:
    import caldav
    from caldav_server_tester import checks
    from caldav_server_tester._version import __version__ as tester_version
    from caldav_server_tester.checker import ServerQuirkChecker
except ImportError:  # pragma: no cover
    sys.exit("caldav-server-tester is not installed: pip install caldav-server-tester==1.7.0")

sys.path.append(HERE)  # for caldav_client's Server

# The features TaskOnlyPrepare grades: how the tester's task fixtures are stored.
TASK_FIXTURE_FEATURES = {
    "save-load.todo",
    "save-load.todo.mixed-calendar",
    "save-load.todo.recurrences",
    "save-load.todo.recurrences.count",
}


class _NotStored:
    """What the task-only preparation hands back for an event or journal fixture it leaves
    out: enough for the preparation's `load()` and `component` reads, nothing stored."""

    component = {}

    def load(self, *args, **kwargs):
        return self


class TaskOnlyPrepare(checks.PrepareCalendar):
    """The tester's preparation with tasks only: its VTODO fixtures, as it makes them."""

    depends_on = set()
    features_to_be_checked = TASK_FIXTURE_FEATURES

    def set_feature(self, feature, value=True):
        # The event, journal and URL features it would grade are not probed here.
        if feature in self.features_to_be_checked:
            super().set_feature(feature, value)

    def _find_or_create_calendar(self, cal_id, name, test_cal_info):
        super()._find_or_create_calendar(cal_id, name, test_cal_info)
        calendar = self.checker.calendar
        save = calendar.save_object

        def tasks_only(objclass, *args, **kwargs):
            if objclass in (checks.Event, checks.Journal):
                return _NotStored()
            return save(objclass, *args, **kwargs)

        calendar.save_object = tasks_only

    def _run_check(self):
        try:
            super()._run_check()
        finally:
            calendar = getattr(self.checker, "calendar", None)
            if calendar is not None:
                calendar.__dict__.pop("save_object", None)

    # Probes made on the VEVENT fixture csc_simple_event1 or on VEVENT bodies.
    def _check_get_by_url(self, calendar):
        pass

    def _check_stable_url(self, calendar):
        pass

    def _check_encode_at(self, calendar):
        pass


# (check, the features of it graded; None: all it declares)
DISCOVERY_CHECKS = [
    ("CheckGetCurrentUserPrincipal", None),
    ("CheckWWWAuthenticate", None),
    ("CheckWellKnown", None),
    ("CheckPropfindAllprop", None),
]
TASK_CHECKS = [
    ("TaskOnlyPrepare", None),
    # The recent-date time range (an event and a task of its own), the year-2000 task,
    # component-type filtering; category, AND-ed and unlimited-range searches are made on
    # event fixtures.
    ("CheckSearch", {
        "search.time-range.todo",
        "search.time-range.todo.old-dates",
        "search.comp-type",
        "search.comp-type.optional",
    }),
    ("CheckTodoNoDtstartSearch", None),
    ("CheckTodoUncomplete", None),
    ("CheckTodoTimeRangeStrict", None),
    # open.start.duration combines a VTODO and a VEVENT fixture.
    ("CheckOpenTimeRangeSearch", {"search.time-range.open.start", "search.time-range.open.end"}),
    ("CheckNonExistingResource", None),
]
VTODO_CHECKS = [
    ("CheckSynchronousWrite", None),
    ("CheckPutEtag", None),
    ("CheckNoUidConflict", None),
    ("CheckIfMatchOptional", None),
    ("CheckRelatedTo", None),
    ("CheckSyncToken", None),
    ("CheckSyncTokenLimit", None),
]
# Not run, and why.
NOT_RUN = {
    "CheckMakeDeleteCalendar": "makes and deletes calendars (MKCALENDAR: 403 by docs §20)",
    "CheckSupportedComponentSet": "makes calendars",
    "CheckDuplicateUID": "makes a second calendar",
    "CheckCalendarProperties": "calendar colour and order (PROPPATCH of a calendar)",
    "CheckProppatchDelay": "PROPPATCH of a calendar",
    "CheckRecurrenceSearch": "its todo probes run only after event searches on event fixtures",
    "CheckMutable": "edits the VEVENT fixture csc_simple_event1",
    "CheckDuplicateEvent, CheckEventWithoutSummary, CheckEventWithoutDtend, "
    "CheckRescheduleRecurrenceSeries, CheckCancelledRecurrenceException, CheckAttendeePartstat, "
    "CheckTimezone, CheckAlarmSearch, CheckIsNotDefined, CheckCaseSensitiveSearch, "
    "CheckSubstringSearch": "event features, probed on event fixtures",
    "CheckScheduling and its followers, CheckFreeBusyQuery, CheckPrincipalSearch":
        "scheduling, free-busy and principal search (not offered, docs §20)",
}

# Features where taskd differs from Radicale because docs §20 says so: feature -> why.
# None since docs §27: `save.etag` passes, a PUT's answer carrying the ETag of its bytes.
CONTRACT_DIFFERENCES = {}

# Radicale 3.9.0's levels, from `--json` of a run against it (see the module doc).
RADICALE = {
    "auth.www-authenticate": "full",
    "auth.www-authenticate.usable-scheme": "full",
    "get-current-user-principal": "full",
    "non-existing-raises-not-found.collection": "full",
    "non-existing-raises-not-found.object": "full",
    "propfind": "full",
    "propfind.allprop": "full",
    "propfind.allprop.resourcetype": "full",
    "propfind.principal-depth-1": "full",
    "save-load.icalendar.related-to": "full",
    "save-load.mutable.if-match-optional": "full",
    "save-load.mutable.if-match-wildcard": "full",
    "save-load.todo": "full",
    "save-load.todo.mixed-calendar": "full",
    "save-load.todo.recurrences": "full",
    "save-load.todo.recurrences.count": "full",
    "save-load.todo.uncomplete": "full",
    "save.etag": "full",
    "save.if-none-match": "full",
    "save.no-uid-conflict": "full",
    "search.comp-type": "full",
    "search.comp-type.optional": "full",
    "search.time-range.open.end": "full",
    "search.time-range.open.start": "full",
    "search.time-range.todo": "full",
    "search.time-range.todo.no-dtstart": "full",
    "search.time-range.todo.no-dtstart.no-due": "full",
    "search.time-range.todo.old-dates": "full",
    "search.time-range.todo.strict": "full",
    "sync-token": "full",
    "sync-token.delete": "full",
    "sync-token.invalid-token": "full",
    "sync-token.limit": "unsupported",
    "sync-token.limit.initial-sync": "unsupported",
    "synchronous-write": "full",
    "well-known": "unknown",
}


def as_vtodo(body):
    """`body` with its VEVENTs sent as VTODOs (`DTEND` as `DUE`); other bodies unchanged."""
    raw = isinstance(body, bytes)
    text = body.decode("utf-8") if raw else (body or "")
    if "BEGIN:VEVENT" not in text:
        return body
    text = re.sub(r"(?m)^BEGIN:VEVENT", "BEGIN:VTODO", text)
    text = re.sub(r"(?m)^END:VEVENT", "END:VTODO", text)
    text = re.sub(r"(?m)^DTEND([;:])", r"DUE\1", text)
    return text.encode("utf-8") if raw else text


@contextmanager
def objects_as_todos(client, rewritten):
    """Every PUT `client` sends in the block carries VTODOs where it had VEVENTs; each
    rewritten PUT adds one to `rewritten[0]`."""
    original = client.request
    had_own = "request" in client.__dict__

    def request(url, method="GET", body="", headers=None, *args, **kwargs):
        if str(method).upper() == "PUT":
            sent = as_vtodo(body)
            rewritten[0] += sent is not body
            body = sent
        return original(url, method, body, headers, *args, **kwargs)

    client.request = request
    try:
        yield
    finally:
        if had_own:
            client.request = original
        else:
            client.__dict__.pop("request", None)


def check_class(name):
    return TaskOnlyPrepare if name == "TaskOnlyPrepare" else getattr(checks, name)


def level(features, feature):
    """The support level the run recorded for `feature`, with its behaviour note."""
    node = features.get(feature)
    if node is None:
        return "not set", ""
    return node.get("support", "full"), node.get("behaviour", "")


def verdict(support):
    if support in ("full", "quirk"):
        return "passed"
    if support == "unsupported":
        return "unsupported"
    if support in ("broken", "fragile", "ungraceful"):
        return "failed"
    return "unknown"


def run(client, calendar):
    """Runs the checks on `client`, the test objects in the calendar named `calendar` (the
    tester makes one when `None`): the rows (group, check, feature, support, behaviour,
    graded), the errors checks raised, and how many PUTs were sent as VTODOs."""
    checker = ServerQuirkChecker(client, debug_mode=None)
    if calendar:
        checker.expected_features.set_feature("test-calendar.compatibility-tests",
                                              {"name": calendar})
    rows = []
    errors = []
    rewritten = [0]

    def one(group, name, graded, vtodo=False):
        cls = check_class(name)
        before = set(checker.features_checked.dotted_feature_set_list(compact=False))
        try:
            if vtodo:
                with objects_as_todos(client, rewritten):
                    cls(checker).run_check()
            else:
                cls(checker).run_check()
        except Exception as e:  # the tester's own assertions: reported, the run goes on
            errors.append(f"{name}: {type(e).__name__}: {e}")
        if name == "TaskOnlyPrepare":
            # The checks that depend on the tester's preparation use this one instead.
            checker._checks_run.update({checks.PrepareCalendar, checks.CheckMakeDeleteCalendar})
        found = checker.features_checked.dotted_feature_set_list(compact=False)
        declared = set(cls.features_to_be_checked)
        for feature in sorted(declared | (set(found) - before)):
            if feature not in declared and not any(feature.startswith(d + ".") for d in declared):
                continue
            support, behaviour = level(found, feature)
            rows.append((group, name, feature, support, behaviour,
                         graded is None or feature in graded))

    try:
        for name, graded in DISCOVERY_CHECKS:
            one("discovery", name, graded)
        for name, graded in TASK_CHECKS:
            one("task", name, graded)
        for name, graded in VTODO_CHECKS:
            one("vtodo", name, graded, vtodo=True)
    finally:
        try:
            checker.cleanup(force=True)
        except Exception as e:
            logging.warning("cleanup failed: %s", e)
    return rows, errors, rewritten[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", nargs="?", help="a taskd binary to start and grade")
    parser.add_argument("--url", help="grade the CalDAV server at this URL instead")
    parser.add_argument("--user", default="anyone")
    parser.add_argument("--password", default="")
    parser.add_argument("--calendar", help="display name of an existing calendar to use")
    parser.add_argument("--json", help="write this run's levels to this file")
    args = parser.parse_args()
    if bool(args.binary) == bool(args.url):
        parser.error("give a taskd binary or --url")
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(message)s")
    # The preparation warns when the calendar holds no event: here it never does.
    logging.getLogger().handlers[0].addFilter(
        lambda record: "appears empty after PrepareCalendar" not in record.getMessage())

    server = None
    if args.binary:
        from caldav_client import TOKEN, Server
        server = Server(args.binary)
        url, user, password = server.root + "/dav/", "anyone", TOKEN
    else:
        url, user, password = args.url, args.user, args.password
    try:
        with caldav.DAVClient(url=url, username=user, password=password) as client:
            calendar = args.calendar
            if server is not None and not calendar:
                # The calendar of the default space's tasks without a list.
                calendar = client.principal().calendars()[0].get_display_name()
            rows, errors, rewritten = run(client, calendar)
    finally:
        if server is not None:
            server.stop()

    print(f"caldav-server-tester {tester_version} (caldav {caldav.__version__}) against {url}")
    print(f"{'check':<30} {'feature':<45} {'this run':<12} {'Radicale':<12} note")
    counts = {"passed": 0, "failed": 0, "unsupported": 0, "unknown": 0}
    regressions = []
    for group, name, feature, support, behaviour, graded in rows:
        reference = RADICALE.get(feature, "-")
        mark = ""
        if graded:
            counts[verdict(support)] += 1
            if verdict(reference) == "passed" and verdict(support) != "passed":
                if feature in CONTRACT_DIFFERENCES:
                    mark = f"(contract: {CONTRACT_DIFFERENCES[feature]}) "
                else:
                    mark = "FAIL "
                    regressions.append(feature)
        else:
            mark = "(not graded: probed on events) "
        print(f"{name:<30} {feature:<45} {support:<12} {reference:<12} {mark}{behaviour}")
    graded = sum(counts.values())
    print(f"\n{graded} task features graded: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['unsupported']} unsupported, {counts['unknown']} unknown")
    print(f"{rewritten} PUTs of the protocol checks sent as VTODO")
    for error in errors:
        print(f"check error: {error}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({feature: support for _, _, feature, support, _, graded in rows if graded},
                      out, indent=2, sort_keys=True)
    if regressions:
        print("FAILED where Radicale 3.9.0 passes: " + ", ".join(regressions))
        return 1
    if not RADICALE:
        print("note: no Radicale reference in the script yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())

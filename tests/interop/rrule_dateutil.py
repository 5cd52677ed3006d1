#!/usr/bin/env python3
"""Differential test: taskd's recurrence expansion (docs §18) against python-dateutil.

Usage: python3 tests/interop/rrule_dateutil.py [path/to/taskd] [--rules N] [--seed S]

Starts the given taskd binary (default target/debug/taskd) on a temporary data directory,
generates rules with a fixed seed (FREQ YEARLY/MONTHLY/WEEKLY/DAILY/HOURLY, INTERVAL, COUNT
or UNTIL (UTC `...Z`), BYDAY with ordinals where RFC 5545 allows them (MONTHLY, YEARLY),
BYMONTHDAY incl. negative, BYSETPOS, BYMONTH, BYHOUR, WKST), with DTSTARTs (= `dateDue`) in
several zones (UTC, Europe/Paris, America/New_York, Asia/Kolkata, Australia/Lord_Howe,
Pacific/Chatham, America/Santiago, Europe/London), a good part of them in or next to a
daylight-saving change, some with seconds and milliseconds, and some all-day tasks. Each
rule becomes a task (`POST /api/v1/tasks`); its occurrences over a window (from `dateDue`, or
36 h before it; paged by `from` while `hasMore`, sometimes with a small `limit`; and once
more from an instant inside the window, which makes taskd resume the expansion part-way)
are compared, occurrence by occurrence in UTC milliseconds, with
the series computed by dateutil's `rrulestr` from the same rule text (without COUNT and
UNTIL, which are applied as below).

How the expected side is built. dateutil expands the rule on *naive* wall times with
DTSTART = the wall time of `dateDue` in the task's zone (to the second; the milliseconds of
`dateDue` are added back to every wall time, §18 "A dateDue with milliseconds keeps them on
every occurrence"). Expanding naive wall times is what §18 asks ("expanded in local time of
timeZone ... 09:00 stays 09:00"; "HOURLY steps by wall-clock hours of timeZone"), so HOURLY
across a DST change needs no adjustment: dateutil on naive times already steps by wall-clock
hours. Each wall time is then placed in the zone with `zoneinfo` and fold=0: by PEP 495 a
nonexistent wall time with fold=0 takes the offset from before the change, i.e. it moves
forward by the gap, and an ambiguous one takes its first offset, exactly §18's "a local time
that does not exist moves forward by the gap; an ambiguous one takes the first offset".
Not adjustments but harness steps: dateutil refuses a UTC UNTIL with a naive DTSTART, so
UNTIL is applied here, on instants and inclusively, as RFC 5545 §3.3.10 says of a UTC
UNTIL (`apply_until`); an all-day series' occurrence is the start of the wall time's day
(§18 "with isAllDay the occurrences are days"), its UNTIL a date, inclusive.

Where dateutil (or a naive reading of it) and the contract disagree, the expected side is
adjusted to the contract, each by a named function, counted in the summary:

- `dtstart_always_first`: dateutil yields DTSTART only when the rule generates it, and
  then counts COUNT among the generated instances only. §18: "`dateDue` is always the first
  occurrence of its series and counts toward `COUNT`, whether or not the rule would
  generate it; the rule's instances after it follow." So when dateutil's first wall time is
  not DTSTART, the expected series is DTSTART followed by dateutil's first COUNT-1 instances.
- `drop_at_or_before_due`: when `dateDue` is the *second* instant of a repeated wall time
  (clocks went back), a later wall time of the same repeated hour is placed at its first
  offset, at or before `dateDue`. §18: dateDue is the first occurrence and "the rule's
  instances after it follow" (and "COUNT counts the wall times the rule generates"): such
  a wall time uses up COUNT but is not listed.
- `merge_same_instant`: two wall times can land on one instant when one is in a gap and
  moves forward onto the other (HOURLY 02:30 -> 03:30 next to 03:30; BYHOUR=2,3), and a
  moved one can land after a later wall time's instant. §18: "Two wall times that land on
  one instant (a gap) are one occurrence; `COUNT` counts the wall times the rule generates."
  The expected instants are sorted and duplicates merged after COUNT has been applied.
- `empty_byset_series`: dateutil raises "Invalid rrule byxxx generates an empty set" for
  a rule whose BYxxx values can never be reached from DTSTART (FREQ=HOURLY;INTERVAL=12;
  BYHOUR=5 from 09:00). RFC 5545 does not forbid such a rule and §18 refuses only "the
  combinations RFC 5545 forbids"; by §18's "A rule with no instance within 100 years of
  `dateDue` has no next occurrence", its series is `dateDue` alone.
- `horizon_100_years`: dateutil searches on to year 9999. §18: "A rule with no instance
  within 100 years of `dateDue` has no next occurrence"; taskd applies this between
  consecutive wall times (series.rs), so the expected series ends at the first wall time
  more than 100 years after the previous one.

Any other mismatch is a failure: the rule, zone, dateDue, the query and the first differing
occurrence are printed and the exit status is 1.
"""

import argparse
import os
import random
import re
import signal
import sys
import time
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taskd_server import Server  # noqa: E402

try:
    from dateutil.rrule import rrulestr
except ImportError:  # pragma: no cover
    sys.exit("python-dateutil is required: pip install python-dateutil")

TOKEN = "rrule-dateutil-differential-token-0123456789"
EPOCH = datetime(1970, 1, 1)
UTC = timezone.utc
MS = timedelta(milliseconds=1)
ZONES = [
    "UTC",
    "Europe/Paris",
    "America/New_York",
    "Asia/Kolkata",
    "Australia/Lord_Howe",  # 30-minute DST shift
    "Pacific/Chatham",  # +12:45 / +13:45
    "America/Santiago",  # midnight gaps
    "Europe/London",
]
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
ADJUSTMENTS = Counter()


class Timeout(Exception):
    pass


# ---------------------------------------------------------------------------------------
# Time helpers (all instants are integer milliseconds since the Unix epoch, UTC)


def instant(wall, zone, fold=0):
    """The instant of a naive wall time in `zone`. fold=0: a nonexistent wall time moves
    forward by the gap, an ambiguous one takes the first offset (§18, PEP 495)."""
    offset = wall.replace(tzinfo=zone, fold=fold).utcoffset()
    return (wall - offset - EPOCH) // MS


def wall_of(ms, zone):
    """The wall time (naive) and fold of an instant in `zone`."""
    local = (datetime(1970, 1, 1, tzinfo=UTC) + ms * MS).astimezone(zone)
    return local.replace(tzinfo=None, fold=0), local.fold


def start_of_day(day, zone):
    """00:00 of `day` in `zone`, moved forward by the gap if it does not exist (§18)."""
    return instant(datetime(day.year, day.month, day.day), zone)


def iso(ms):
    return (EPOCH + ms * MS).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_iso(text):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?Z", text)
    if not m:
        raise ValueError(f"unexpected date-time {text!r}")
    y, mo, d, h, mi, s, frac = m.groups()
    ms = int((frac or "0").ljust(3, "0"))
    return (datetime(int(y), int(mo), int(d), int(h), int(mi), int(s)) - EPOCH) // MS + ms


def transitions(zone, year):
    """The offset changes of `zone` in `year`: (instant ms, offset before, offset after)."""
    out = []
    t = (datetime(year, 1, 1) - EPOCH) // MS
    end = (datetime(year + 1, 1, 1) - EPOCH) // MS
    step = 3600 * 1000 * 6

    def off(ms):
        return (datetime(1970, 1, 1, tzinfo=UTC) + ms * MS).astimezone(zone).utcoffset()

    prev = off(t)
    while t < end:
        nxt = off(t + step)
        if nxt != prev:
            lo, hi = t, t + step  # off(lo) == prev, off(hi) != prev
            while hi - lo > 1000:
                mid = (lo + hi) // 2
                if off(mid) == prev:
                    lo = mid
                else:
                    hi = mid
            out.append((hi // 1000 * 1000, prev, nxt))
            prev = nxt
        t += step
    return out


# ---------------------------------------------------------------------------------------
# The expected series


def dtstart_always_first(generated, start_wall, count, base):
    """§18: "`dateDue` is always the first occurrence of its series and counts toward
    `COUNT`, whether or not the rule would generate it; the rule's instances after it
    follow." dateutil yields DTSTART only when the rule generates it. `generated` is
    dateutil's series (COUNT applied when given); `base` the rule without COUNT/UNTIL."""
    if generated and generated[0] == start_wall:
        return generated
    ADJUSTMENTS["dtstart_always_first"] += 1
    if count is None:
        return [start_wall] + generated
    rest = list(base.replace(count=count - 1)) if count > 1 else []
    return [start_wall] + rest


def empty_byset_series(case, error):
    """dateutil refuses a rule whose BYxxx parts leave no value reachable from DTSTART
    (HOURLY;INTERVAL=12;BYHOUR=5 from 09:00: "Invalid rrule byxxx generates an empty
    set"). RFC 5545 does not forbid it, nor does §18 (which refuses only the combinations
    RFC 5545 forbids), and §18 says: "A rule with no instance within 100 years of `dateDue`
    has no next occurrence". So its series is dateDue alone."""
    if "empty set" not in str(error):
        raise error
    ADJUSTMENTS["empty_byset_series"] += 1
    return [case["due_ms"]]


def horizon_100_years(walls):
    """§18: "A rule with no instance within 100 years of `dateDue` has no next
    occurrence"; taskd (series.rs) ends the series at the first wall time more than 100
    years after the one before it. dateutil searches on to year 9999."""
    for i in range(1, len(walls)):
        prev = walls[i - 1]
        try:
            limit = prev.replace(year=prev.year + 100)
        except ValueError:  # 29 February
            limit = prev.replace(year=prev.year + 100, day=28)
        if walls[i] > limit:
            ADJUSTMENTS["horizon_100_years"] += 1
            return walls[:i]
    return walls


def drop_at_or_before_due(instants, due):
    """§18: dateDue is the first occurrence and "the rule's instances after it follow";
    "COUNT counts the wall times the rule generates". A later wall time of a repeated hour
    read at its first offset can land at or before a dateDue given as the second instant:
    it has used up COUNT (it is past this point) but is not an occurrence."""
    kept = [instants[0]] + [t for t in instants[1:] if t > due]
    if len(kept) != len(instants):
        ADJUSTMENTS["drop_at_or_before_due"] += len(instants) - len(kept)
    return kept


def merge_same_instant(instants):
    """§18: "Two wall times that land on one instant (a gap) are one occurrence; `COUNT`
    counts the wall times the rule generates." A wall time in a gap moves forward by the
    gap and can land on, or after, a later wall time's instant: sort, then merge."""
    merged = sorted(set(instants))
    if merged != instants:
        ADJUSTMENTS["merge_same_instant"] += max(1, len(instants) - len(merged))
    return merged


def apply_until(instants, case):
    """UNTIL bounds the series inclusively (RFC 5545 §3.3.10), on instants for a UTC
    UNTIL; for an all-day task it is a date, through that day in the zone (§18). dateDue
    stays the first occurrence whatever UNTIL says (§18, see dtstart_always_first)."""
    if case["until_ms"] is None:
        return instants
    if case["all_day"]:
        end = start_of_day(case["until_date"] + timedelta(days=1), case["zone"])
        return instants[:1] + [t for t in instants[1:] if t < end]
    return instants[:1] + [t for t in instants[1:] if t <= case["until_ms"]]


def expected_series(case, end_ms):
    """The occurrences of the case's series (dateDue first), at least through `end_ms`."""
    zone = case["zone"]
    start_wall = case["start_wall"]
    try:
        base = rrulestr(case["core"], dtstart=start_wall)
    except ValueError as e:
        return empty_byset_series(case, e)
    count = case["count"]
    if count is not None:
        generated = list(base.replace(count=count))
    else:
        # Far enough that every wall time whose instant is before end_ms is read
        # (offsets are under a day; an all-day occurrence is the start of its day).
        wall_end = wall_of(end_ms, zone)[0] + timedelta(days=3)
        generated = []
        for wall in base:
            generated.append(wall)
            if wall > wall_end:
                break
    walls = dtstart_always_first(generated, start_wall, count, base)
    walls = horizon_100_years(walls)
    if case["all_day"]:
        instants = [case["due_ms"]] + [start_of_day(w.date(), zone) for w in walls[1:]]
    else:
        millis = timedelta(milliseconds=case["millis"])
        instants = [case["due_ms"]] + [instant(w + millis, zone) for w in walls[1:]]
    instants = drop_at_or_before_due(instants, case["due_ms"])
    instants = [instants[0]] + merge_same_instant(instants[1:])
    return apply_until(instants, case)


# ---------------------------------------------------------------------------------------
# Rule generation


def pick_days(rng, n, ordinals, freq, by_month):
    days = set()
    while len(days) < n:
        wd = rng.choice(WEEKDAYS)
        if ordinals and rng.random() < 0.7:
            if freq == "YEARLY" and not by_month:
                k = rng.choice([1, 2, 10, 20, 26, 52, -1, -2, -10])
            else:
                k = rng.choice([1, 2, 3, 4, -1, -2, 5])
            days.add(f"{k}{wd}")
        else:
            days.add(wd)
    return sorted(days)


def gen_rule(rng, all_day):
    freqs = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY"] + ([] if all_day else ["HOURLY"])
    freq = rng.choice(freqs)
    parts = [f"FREQ={freq}"]
    if rng.random() < 0.4:
        if freq == "HOURLY":
            # (not 7 or 8: a multiple of a week would make BYDAY+BYHOUR often impossible)
            interval = rng.choice([2, 3, 5, 12, 25])
        else:
            interval = rng.choice([2, 3, 4])
        parts.append(f"INTERVAL={interval}")
    by_month = []
    if freq in ("YEARLY", "MONTHLY") and rng.random() < 0.4 or rng.random() < 0.1:
        by_month = sorted(rng.sample(range(1, 13), rng.choice([1, 2, 3])))
    bys = []
    r = rng.random()
    if freq in ("MONTHLY", "YEARLY"):
        if r < 0.35:
            bys.append(("BYDAY", pick_days(rng, rng.choice([1, 1, 2]), True, freq, by_month)))
        elif r < 0.65:
            pool = list(range(1, 29)) + list(range(-28, 0))
            if not by_month and freq == "MONTHLY":
                pool += [29, 30, 31, -29, -30, -31]
            bys.append(("BYMONTHDAY", rng.sample(pool, rng.choice([1, 1, 2, 3]))))
        elif r < 0.8:
            # Weekdays of a month with BYSETPOS: "the last working day", "the 2nd MO or TU"
            bys.append(("BYDAY", pick_days(rng, rng.choice([2, 3, 5]), False, freq, by_month)))
        elif r < 0.9:
            # Friday the 13th and the like (plain BYDAY filters BYMONTHDAY)
            bys.append(("BYMONTHDAY", [rng.choice([1, 13, 15, -1, 28])]))
            bys.append(("BYDAY", pick_days(rng, rng.choice([1, 2]), False, freq, by_month)))
    elif freq == "WEEKLY":
        if r < 0.7:
            bys.append(("BYDAY", pick_days(rng, rng.choice([1, 2, 3]), False, freq, by_month)))
    else:  # DAILY, HOURLY
        if r < 0.3:
            bys.append(("BYDAY", pick_days(rng, rng.choice([1, 2, 5]), False, freq, by_month)))
        elif r < 0.45:
            bys.append(("BYMONTHDAY", rng.sample(list(range(1, 29)) + [-1, -2], rng.choice([1, 2]))))
    if not all_day and freq != "YEARLY" and rng.random() < (0.4 if freq == "HOURLY" else 0.15):
        bys.append(("BYHOUR", sorted(rng.sample(range(0, 24), rng.choice([1, 2, 3])))))
    if by_month:
        bys.append(("BYMONTH", by_month))
    if not all_day and freq in ("HOURLY", "DAILY") and rng.random() < 0.12:
        bys.append(("BYMINUTE", sorted(rng.sample([0, 15, 30, 45, 59], rng.choice([1, 2])))))
    if bys and freq in ("MONTHLY", "YEARLY", "WEEKLY") and rng.random() < 0.35:
        # Positions within the set a period has (a position past it selects nothing,
        # which makes a rule without instances: a few are enough, see special_cases).
        size = 1
        for name, values in bys:
            if name == "BYDAY":
                size *= sum(1 if v[0] in "-123456789" else (1 if freq == "WEEKLY" else 4) for v in values)
            elif name in ("BYMONTHDAY", "BYHOUR", "BYMINUTE"):
                size *= len(values)
        pool = [p for p in (1, 2, 3, -1, -2) if abs(p) <= size]
        bys.append(("BYSETPOS", sorted(rng.sample(pool, rng.choice([1, 1, 2]) if len(pool) > 1 else 1))))
    for name, values in bys:
        parts.append(f"{name}=" + ",".join(str(v) for v in values))
    if rng.random() < 0.35 or freq == "WEEKLY" and rng.random() < 0.5:
        parts.append(f"WKST={rng.choice(WEEKDAYS)}")
    tail = parts[1:]
    rng.shuffle(tail)  # the order of the parts is free (FREQ stays first for the reader)
    return parts[:1] + tail


def gen_start(rng, zone_name, zone, all_day):
    """(wall time, fold, kind) of a DTSTART; about half of them at a DST change."""
    year = rng.randrange(2026, 2032)
    trans = transitions(zone, year)
    if trans and rng.random() < 0.5:
        t_ms, before, after = rng.choice(trans)
        lo = wall_of(t_ms - 1, zone)[0] + MS  # wall time at the change, before offset
        shift = after - before
        if all_day:
            day = lo.date() - timedelta(days=rng.choice([0, 0, 1, 2, 6]))
            return datetime(day.year, day.month, day.day), 0, "dst-day"
        kind = rng.choice(["inside", "days-before", "hours-before"])
        if shift > timedelta(0):  # gap: wall times [lo, lo + shift) do not exist
            inside = lo + timedelta(minutes=rng.randrange(0, int(shift.total_seconds() // 60)))
            fold = 0
        else:  # fold: wall times [lo + shift, lo) happen twice
            inside = lo + shift + timedelta(minutes=rng.randrange(0, int(-shift.total_seconds() // 60)))
            fold = rng.choice([0, 1])
        if kind == "inside":
            return inside, fold, "dst-inside"
        if kind == "days-before":
            return inside - timedelta(days=rng.choice([1, 2, 3, 7, 8])), 0, "dst-days-before"
        return inside - timedelta(hours=rng.choice([1, 2, 3, 5])), 0, "dst-hours-before"
    month = rng.randrange(1, 13)
    day = rng.choice([1, 2, 13, 15, 28, 29, 30, 31, rng.randrange(1, 29)])
    while True:
        try:
            d = date(year, month, day)
            break
        except ValueError:
            day -= 1
    if all_day:
        return datetime(d.year, d.month, d.day), 0, "plain"
    wall = datetime(d.year, d.month, d.day, rng.randrange(0, 24), rng.choice([0, 0, 15, 30, 45]))
    return wall, 0, "plain"


def make_case(rng, index):
    zone_name = rng.choice(ZONES)
    zone = ZoneInfo(zone_name)
    all_day = rng.random() < 0.1
    wall, fold, kind = gen_start(rng, zone_name, zone, all_day)
    millis = 0
    if not all_day and rng.random() < 0.15:
        wall = wall.replace(second=rng.randrange(0, 60))
        millis = rng.choice([0, 1, 123, 999])
    if all_day:
        due_ms = start_of_day(wall.date(), zone)
    else:
        due_ms = instant(wall, zone, fold) + millis
    start_wall, start_fold = wall_of(due_ms, zone)
    start_wall = start_wall.replace(microsecond=0)
    if all_day:
        start_wall = datetime(start_wall.year, start_wall.month, start_wall.day)
    parts = gen_rule(rng, all_day)
    freq = parts[0].split("=")[1]
    window_days = {"YEARLY": 3650, "MONTHLY": 1100, "WEEKLY": 800, "DAILY": 800, "HOURLY": 40}[freq]
    case = {
        "index": index,
        "zone_name": zone_name,
        "zone": zone,
        "all_day": all_day,
        "kind": kind + (" (second instant)" if start_fold else ""),
        "due_ms": due_ms,
        "millis": millis,
        "start_wall": start_wall,
        "core": ";".join(parts),
        "count": None,
        "until_ms": None,
        "until_date": None,
        "end_ms": due_ms + window_days * 86_400_000,
    }
    r = rng.random()
    if r < 0.4:
        case["count"] = rng.choice([1, 2, 3, 5, 10, 25, 60])
        case["text"] = case["core"] + f";COUNT={case['count']}"
    elif r < 0.75:
        # An UNTIL on an occurrence of the unbounded series (inclusive), or anywhere in the
        # window; rarely before dateDue.
        signal.alarm(5)
        try:
            plain = expected_series(case, case["end_ms"])
        except Timeout:
            plain = [due_ms]
        finally:
            signal.alarm(0)
            ADJUSTMENTS.clear()  # not a compared series
        inside = [t for t in plain if t < case["end_ms"]]
        roll = rng.random()
        if roll < 0.05:
            until = due_ms - rng.randrange(1, 10**9)
        elif roll < 0.55 and len(inside) > 1:
            until = rng.choice(inside[1:]) // 1000 * 1000
        else:
            until = due_ms + rng.randrange(0, case["end_ms"] - due_ms)
        if all_day:
            case["until_date"] = wall_of(until, zone)[0].date()
            case["until_ms"] = until
            text = case["until_date"].strftime("%Y%m%d")
        else:
            case["until_ms"] = until // 1000 * 1000
            text = (EPOCH + case["until_ms"] * MS).strftime("%Y%m%dT%H%M%SZ")
        parts = case["core"].split(";")
        parts.insert(rng.randrange(1, len(parts) + 1), f"UNTIL={text}")
        case["text"] = ";".join(parts)
    else:
        case["text"] = case["core"]
    if rng.random() < 0.1:
        case["text"] = case["text"].lower()  # rule text is case-insensitive (§18)
    return case


def special_cases():
    """Hand-picked rules: sparse series, the 100-year horizon, impossible rules."""
    out = []

    def add(zone_name, wall, rule, years, label, utc=False):
        zone = ZoneInfo(zone_name)
        due = (wall - EPOCH) // MS if utc else instant(wall, zone)
        wall = wall_of(due, zone)[0]  # a wall time in a gap is the one after it
        out.append({
            "index": f"special:{label}", "zone_name": zone_name, "zone": zone,
            "all_day": False, "kind": label, "due_ms": due, "millis": 0,
            "start_wall": wall, "core": rule, "count": None, "until_ms": None,
            "until_date": None, "end_ms": due + int(years * 365.25) * 86_400_000,
            "text": rule,
        })

    # 29 February: 2100 is not a leap year.
    add("Europe/Paris", datetime(2097, 3, 1, 9), "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", 12, "feb29-yearly")
    # 29 February on a Monday: 28 years apart (2016, 2044, 2072), within the 100-year horizon.
    add("UTC", datetime(2016, 3, 1, 9), "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", 60, "feb29-monday-yearly")
    add("UTC", datetime(2016, 3, 1, 9), "FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", 60, "feb29-monday-monthly")
    add("UTC", datetime(2016, 3, 1, 9), "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", 60, "feb29-monday-daily")
    add("America/New_York", datetime(2016, 3, 1, 9), "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=9", 30, "feb29-monday-hourly")
    # Every 1,000 years: no second instance within 100 years.
    add("UTC", datetime(2026, 1, 1, 9), "FREQ=YEARLY;INTERVAL=1000", 200, "interval-1000-years")
    # Every 700 hours (~29 days) across DST changes, from inside a gap.
    add("Europe/Paris", datetime(2026, 3, 29, 2, 30), "FREQ=HOURLY;INTERVAL=700;COUNT=12", 2, "hourly-700")
    # dateDue the second 01:30 of New York's repeated hour: 01:45 that night is read at its
    # first offset, before dateDue (drop_at_or_before_due); COUNT counts it.
    add("America/New_York", datetime(2026, 11, 1, 6, 30), "FREQ=HOURLY;BYMINUTE=0,15,30,45;COUNT=8", 1, "fold-second-hourly", utc=True)
    add("Australia/Lord_Howe", datetime(2026, 4, 4, 15, 10), "FREQ=DAILY;BYHOUR=1,2;BYMINUTE=0,10,20,50", 3, "fold-second-daily", utc=True)
    # Impossible: no 1st Monday is the 20th.
    add("UTC", datetime(2026, 1, 5, 9), "FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=20", 5, "impossible")
    return out


# ---------------------------------------------------------------------------------------
# The server


def list_occurrences(server, todo, from_ms, to_ms, limit):
    """Every occurrence in [from, to), paging by `from` while `hasMore`."""
    got = []
    pages = 0
    while True:
        status, body = server.api(
            "GET", f"/api/v1/tasks/{todo}/occurrences?from={iso(from_ms)}&to={iso(to_ms)}&limit={limit}")
        if status != 200:
            raise RuntimeError(f"occurrences answered {status}: {body}")
        page = [parse_iso(o["dateDue"]) for o in body["data"]]
        got += page
        pages += 1
        if not body["hasMore"]:
            return got, pages
        if len(page) != limit or not page:
            raise RuntimeError(f"hasMore with a page of {len(page)} (limit {limit})")
        from_ms = page[-1] + 1


# ---------------------------------------------------------------------------------------


def describe(case):
    wall = case["start_wall"].isoformat() + (f".{case['millis']:03d}" if case["millis"] else "")
    return (f"rule {case['text']!r}, zone {case['zone_name']}, dateDue {iso(case['due_ms'])} "
            f"(wall {wall}, {case['kind']}{', all-day' if case['all_day'] else ''})")


def compare(case, query, got, want):
    if got == want:
        return None
    i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    show = lambda xs: iso(xs[i]) + f" (wall {wall_of(xs[i], case['zone'])[0]})" if i < len(xs) else "nothing"
    prev = f"; previous both {iso(want[i - 1])}" if i else ""
    return (f"MISMATCH {describe(case)}\n  query {query}: {len(got)} from taskd, {len(want)} "
            f"expected; first difference at #{i}: taskd {show(got)}, expected {show(want)}{prev}")


def alarm(_signum, _frame):
    raise Timeout()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", nargs="?", default="target/debug/taskd")
    parser.add_argument("--rules", type=int, default=300)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGALRM, alarm)

    server = Server(args.binary, TOKEN, "taskd-rrule-")
    failures = []
    rules = occurrences = queries = skipped = 0
    kinds = Counter()
    adjusted = Counter()
    try:
        cases = [make_case(rng, i) for i in range(args.rules)] + special_cases()
        for case in cases:
            ADJUSTMENTS.clear()
            signal.alarm(5)
            try:
                want_all = expected_series(case, case["end_ms"])
            except Timeout:
                skipped += 1
                print(f"skipped (dateutil took over 5 s): {describe(case)}")
                continue
            finally:
                signal.alarm(0)
            body = {"name": f"rrule {case['index']}", "dateDue": iso(case["due_ms"]),
                    "timeZone": case["zone_name"], "recurrence": case["text"]}
            if case["all_day"]:
                body["isAllDay"] = True
            status, reply = server.api("POST", "/api/v1/tasks", body)
            if status != 201:
                failures.append(f"CREATE {status} {reply} for {describe(case)}")
                continue
            task = reply["data"]
            if parse_iso(task["dateDue"]) != case["due_ms"]:
                failures.append(f"dateDue stored as {task['dateDue']} for {describe(case)}")
                continue
            todo = task["todoId"]
            rules += 1
            kinds[case["kind"].split(" ")[0]] += 1
            adjusted.update(ADJUSTMENTS)
            end = case["end_ms"]
            due = case["due_ms"]
            mid = due + rng.randrange(1, max(2, end - due))
            limit = rng.choice([1000, 1000, 1000, 37, 5])
            if len(want_all) > 20 * limit:
                limit = 1000  # small pages only where they stay few
            # From before dateDue (half the time): the series still starts at dateDue, and
            # nothing the rule generates at or before it is listed (drop_at_or_before_due).
            first = due - rng.choice([0, 36 * 3_600_000])
            for name, lo, lim in (("whole window", first, limit), ("from inside", mid, 1000)):
                want = [t for t in want_all if lo <= t < end]
                got, pages = list_occurrences(server, todo, lo, end, lim)
                queries += pages
                occurrences += len(want)
                problem = compare(case, f"{name} from={iso(lo)} to={iso(end)} limit={lim}", got, want)
                if problem:
                    failures.append(problem)
                    break
            if args.verbose:
                print(f"ok {len(want_all)} {describe(case)}")
    finally:
        server.stop()

    for problem in failures:
        print(problem)
    adjustments = ", ".join(f"{k} {v}" for k, v in sorted(adjusted.items())) or "none"
    print(f"rrule_dateutil: {rules} rules compared ({len(failures)} failed, {skipped} skipped; "
          f"DTSTART {dict(sorted(kinds.items()))}), {occurrences} occurrences compared in "
          f"{queries} listings; adjustments to the contract: {adjustments}; "
          f"{time.monotonic() - started:.1f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

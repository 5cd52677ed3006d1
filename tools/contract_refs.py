#!/usr/bin/env python3
"""Rewrite references to the out-of-tree contract ("CONTRACT §12") into ones that resolve here.

    python3 tools/contract_refs.py [--dry-run] [-v] PATH...

PATH is a file or a directory (searched recursively; `.git`, `target` and `node_modules` are
skipped, and so are files that are not UTF-8 text). A reference is the word `CONTRACT` or
`CONTRACT.md` (any case) followed by a section number such as `§12`, `§9a` or `§12.3`, and
by more numbers joined with `,`, `and`, `to` or a dash (`CONTRACT §13, §14`, `CONTRACT
§10–§12`). The word and the number may be split over two lines of a comment (`// `, `/// `,
`//! `, `# `, `* `, `-- `) or of a string continued with a backslash.

- In a Markdown file (`.md`, `.markdown`), each number becomes a relative link to the page
  and anchor that the "Section numbers" table of docs/README.md gives for it:
  `CONTRACT §12` -> `[§12](api/sync.md#change-feed)` (from docs/), and the word goes. In
  fenced code blocks and inline code spans the code form below is used instead.
- In every other file the word becomes `docs`: `CONTRACT §12` -> `docs §12`, which
  docs/README.md explains as "the row §12 of the Section numbers table".

Everything else is left byte for byte as it was (the word without a section number, such
as the iCalendar PRODID `-//taskd//CONTRACT 20//EN`, is not a reference and stays). A
second run changes nothing. Prints the number of replacements per changed file, a total,
and with -v every replacement; --dry-run writes nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS_INDEX = REPO / "docs" / "README.md"
SKIP_DIRS = {".git", "target", "node_modules", "__pycache__"}
MARKDOWN = {".md", ".markdown"}
CODE_WORD = "docs"

# One section number: §12, §9a, §12.3 (group 1: the row, "12" or "9a").
NUMBER = r"§(\d+[a-z]?)(?:\.\d+)*"
# What may join two numbers of one reference.
JOIN = r"(?:\s*(?:,\s*and|,|and|to|–|—|-)\s*)"
# Between the word and the first number: spaces, or a line break with a comment leader.
SEP = r"[ \t\u00a0]*\\?\r?\n[ \t]*(?:///?!?|#|\*|--)?[ \t]*|[ \t\u00a0]*"
REFERENCE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<word>contract(?:\.md)?)(?P<sep>"
    + SEP
    + r")(?P<nums>"
    + NUMBER
    + r"(?:"
    + JOIN
    + NUMBER
    + r")*)",
    re.IGNORECASE,
)
ONE_NUMBER = re.compile(NUMBER)
FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


def load_sections(index: Path) -> dict[str, str]:
    """Section row ("12", "9a") -> link target relative to docs/, from the table."""
    sections: dict[str, str] = {}
    in_table = False
    for line in index.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_table = line.strip() == "## Section numbers"
            continue
        if not in_table:
            continue
        m = re.match(r"\|\s*§(\d+[a-z]?)\s*\|[^|]*\|\s*(.*)\|\s*$", line)
        if not m:
            continue
        link = re.search(r"\]\(([^)\s]+)\)", m.group(2))
        if link:
            target = link.group(1)
            if target.startswith("#"):
                target = "README.md" + target
            sections[m.group(1)] = target
    if not sections:
        sys.exit(f"contract_refs: no 'Section numbers' table found in {index}")
    return sections


def markdown_code_ranges(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks and inline code spans."""
    ranges: list[tuple[int, int]] = []
    pos = 0
    fence: str | None = None
    fence_start = 0
    for line in text.splitlines(keepends=True):
        m = FENCE.match(line)
        if fence is None and m:
            fence, fence_start = m.group(1), pos
        elif fence is not None and m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            ranges.append((fence_start, pos + len(line)))
            fence = None
        elif fence is None:
            for span in re.finditer(r"(`+)(?:(?!\1).)+?\1", line):
                ranges.append((pos + span.start(), pos + span.end()))
        pos += len(line)
    if fence is not None:
        ranges.append((fence_start, len(text)))
    return ranges


def rewrite(text: str, path: Path, sections: dict[str, str], log: list[str]) -> tuple[str, int]:
    markdown = path.suffix.lower() in MARKDOWN
    code = markdown_code_ranges(text) if markdown else []
    out: list[str] = []
    last = 0
    count = 0
    for m in REFERENCE.finditer(text):
        in_code = any(a <= m.start() < b for a, b in code)
        if markdown and not in_code:
            nums = ONE_NUMBER.sub(lambda n: link(n, path, sections, log), m.group("nums"))
            sep = m.group("sep")
            keep = sep[sep.index("\n"):] if "\n" in sep else ""
            new = keep + nums
        else:
            for n in ONE_NUMBER.finditer(m.group("nums")):
                if n.group(1) not in sections:
                    log.append(f"warning: {path}: §{n.group(1)} is not in the table")
            new = CODE_WORD + m.group("sep") + m.group("nums")
        out.append(text[last:m.start()])
        out.append(new)
        last = m.end()
        count += 1
        line = text.count("\n", 0, m.start()) + 1
        log.append(f"{path}:{line}: {m.group(0)!r} -> {new!r}")
    out.append(text[last:])
    return "".join(out), count


def link(n: re.Match, path: Path, sections: dict[str, str], log: list[str]) -> str:
    target = sections.get(n.group(1))
    if target is None:
        log.append(f"warning: {path}: §{n.group(1)} is not in the table; linked to the table")
        target = "README.md#section-numbers"
    page, _, anchor = target.partition("#")
    rel = os.path.relpath(DOCS_INDEX.parent / page, path.resolve().parent).replace(os.sep, "/")
    return f"[{n.group(0)}]({rel}{'#' + anchor if anchor else ''})"


def files(paths: list[str]):
    for p in map(Path, paths):
        if p.is_dir():
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for name in sorted(names):
                    yield Path(root) / name
        elif p.is_file():
            yield p
        else:
            sys.exit(f"contract_refs: no such file or directory: {p}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("-n", "--dry-run", action="store_true", help="count, write nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every replacement")
    args = parser.parse_args()
    sections = load_sections(DOCS_INDEX)
    total = changed = 0
    for path in files(args.paths):
        raw = path.read_bytes()
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        log: list[str] = []
        new, count = rewrite(text, path, sections, log)
        for line in log:
            if args.verbose or line.startswith("warning:"):
                print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)
        if count:
            changed += 1
            total += count
            print(f"{path}: {count} replacement{'s' if count != 1 else ''}")
            if not args.dry_run and new != text:
                path.write_bytes(new.encode("utf-8"))
    verb = "would make" if args.dry_run else "made"
    print(f"total: {verb} {total} replacements in {changed} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Check that every relative link in README.md and docs/ resolves to a file and anchor.

    python3 tools/check_links.py [FILE.md ...]

Without arguments it checks README.md and every Markdown file under docs/. A link's target
must exist (relative to the linking file); a `#anchor` must be a heading of the target
Markdown file, slugged as GitHub does (lowercase, punctuation dropped, spaces to `-`,
`-1`, `-2` for repeats). Links in code blocks and code spans are not links. External links
(`http:`, `https:`, `mailto:`) are not checked. Exits 1 and lists the broken ones, if any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose_lines(text: str):
    """(line number, line with code spans blanked) outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", lambda s: " " * len(s.group(0)), line)


def slug(heading: str) -> str:
    text = re.sub(r"`|\*\*?|__?", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def check(path: Path) -> list[str]:
    broken = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path.resolve()
            where = f"{path.relative_to(REPO)}:{number}: {target}"
            if not dest.exists():
                broken.append(f"{where}: no such file")
            elif anchor:
                if dest.suffix.lower() != ".md":
                    broken.append(f"{where}: anchor into a file that is not Markdown")
                elif anchor not in anchors(dest):
                    broken.append(f"{where}: no heading with anchor #{anchor}")
    return broken


def main() -> int:
    if len(sys.argv) > 1:
        files = [Path(a).resolve() for a in sys.argv[1:]]
    else:
        files = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = [b for f in files for b in check(f)]
    for b in broken:
        print(b)
    count = sum(len(LINK.findall(" ".join(l for _, l in prose_lines(f.read_text())))) for f in files)
    print(f"{len(files)} files, {count} links, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

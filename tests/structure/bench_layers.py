#!/usr/bin/env python3
"""The rooms of bench/ and the include arrows between them, against the layers bench/README.md draws.

    python3 tests/structure/bench_layers.py            # rooms, floors, arrows, arrows running up
    python3 tests/structure/bench_layers.py --check    # exit 1 on an arrow up not allowed below
    python3 tests/structure/bench_layers.py --self-test

A room is a folder of bench/ (base/, config/, ...); a file directly in bench/ (main.cpp) is the
program, above every room. The programs of their own, sim/ (the SimGrid variant) and micro/ (the
micro benchmarks), are left out: they include the rooms, no room includes them. An arrow is a
`#include "room/file"` from one room to another; it runs up when it goes to a higher floor.

The floors are declared once, by the drawing in bench/README.md: the first fenced block after the
heading "## Layers", one room a line, highest first (the first word of a line is the room). A
room of bench/ missing from the drawing, or a drawn room with no folder, fails the check.
"""

import argparse
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

# The arrows allowed to run up, as (from room, to room): why each cannot point down. None today:
# the last ones were cut (bench/README.md, "Layers"). Add one only with its reason.
ALLOWED_UP = {}

# Programs of their own inside bench/ (see the docstring).
SEPARATE = {"sim", "micro"}
PROGRAM = "(main)"  # the files directly in bench/
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".cpp", ".hpp", ".h")


def declared_floors(readme):
    """Rooms from lowest to highest, as the drawing under '## Layers' lists them (highest first)."""
    text = readme.read_text(encoding="utf-8")
    heading = re.search(r"^## Layers\s*$", text, re.M)
    if not heading:
        raise SystemExit(f"{readme}: no '## Layers' heading (the drawing of the floors goes under it)")
    block = re.search(r"^```[^\n]*\n(.*?)^```", text[heading.end():], re.M | re.S)
    if not block:
        raise SystemExit(f"{readme}: no fenced drawing under '## Layers' (one room a line, highest first)")
    rooms = [line.split()[0].rstrip("/") for line in block.group(1).splitlines() if line.strip()]
    return list(reversed(rooms))


def room_of(path, bench):
    rel = path.relative_to(bench)
    return PROGRAM if len(rel.parts) == 1 else rel.parts[0]


def scan(bench):
    """{room: [files]} and the include arrows [(from file, to file)] between files of bench/."""
    files = sorted(p for p in bench.rglob("*") if p.suffix in SOURCES and p.is_file()
                   and p.relative_to(bench).parts[0] not in SEPARATE)
    rooms = defaultdict(list)
    edges = []
    for f in files:
        rooms[room_of(f, bench)].append(f)
        for target in INCLUDE.findall(f.read_text(encoding="utf-8", errors="replace")):
            t = bench / target
            if t.is_file() and t.relative_to(bench).parts[0] not in SEPARATE:
                edges.append((f, t))
    return rooms, edges


def analyse(bench, floors):
    rooms, edges = scan(bench)
    floor = {r: i for i, r in enumerate(floors)}
    floor[PROGRAM] = len(floors)
    problems = []
    for r in sorted(set(rooms) - set(floor)):
        problems.append(f"room {r}/ is not in the drawing under '## Layers' in bench/README.md (add it on its floor)")
    for r in floors:
        if r not in rooms:
            problems.append(f"room {r} of the drawing has no folder bench/{r}/ (remove it from the drawing)")
    arrows = defaultdict(list)  # (from room, to room) -> [(from file, to file)]
    for f, t in edges:
        a, b = room_of(f, bench), room_of(t, bench)
        if a != b:
            arrows[(a, b)].append((f.relative_to(bench), t.relative_to(bench)))
    up = {k: v for k, v in arrows.items() if k[0] in floor and k[1] in floor and floor[k[1]] > floor[k[0]]}
    for (a, b), includes in sorted(up.items()):
        if (a, b) not in ALLOWED_UP:
            first = includes[0]
            problems.append(f"{first[0]} includes {first[1]}: {a}/ is below {b}/ ({len(includes)} include(s) "
                            f"from {a}/ to {b}/; move the code to its floor, or allow the arrow in "
                            f"tests/structure/bench_layers.py with why)")
    return rooms, floor, arrows, up, problems


def report(rooms, floor, arrows, up):
    print("floors (highest first):")
    for r in sorted(floor, key=floor.get, reverse=True):
        print(f"  {floor[r]}  {r:10} {len(rooms.get(r, []))} file(s)")
    edges = sum(len(v) for v in arrows.values())
    print(f"arrows between rooms: {len(arrows)} ({edges} includes)")
    for (a, b), includes in sorted(arrows.items(), key=lambda kv: (-floor.get(kv[0][0], -1), kv[0][1])):
        mark = "UP" if (a, b) in up else "  "
        print(f"  {mark} {a} -> {b}: {len(includes)}")
    print(f"arrows running up: {len(up)} ({sum(len(v) for v in up.values())} includes)")
    for (a, b), includes in sorted(up.items()):
        why = ALLOWED_UP.get((a, b), "NOT ALLOWED")
        print(f"  {a} -> {b} ({why})")
        for f, t in includes:
            print(f"      {f} -> {t}")


def self_test():
    """The check fails on an arrow up, on an undeclared room and on a drawn room with no folder."""
    def tree(root, files, drawing):
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        (root / "README.md").write_text("# x\n\n## Layers\n\n```\n" + "\n".join(drawing) + "\n```\n")

    cases = {
        "down only": ({"low/a.hpp": "", "high/b.cpp": '#include "low/a.hpp"\n#include "collrepro/x.hpp"\n',
                       "main.cpp": '#include "high/b.hpp"\n', "high/b.hpp": ""},
                      ["high   the top", "low    the bottom"], 0),
        "an arrow up": ({"low/a.cpp": '#include "high/b.hpp"\n', "high/b.hpp": ""}, ["high", "low"], 1),
        "a room not drawn": ({"low/a.hpp": "", "extra/c.cpp": '#include "low/a.hpp"\n'}, ["low"], 1),
        "a drawn room with no folder": ({"low/a.hpp": ""}, ["ghost", "low"], 1),
        "separate programs left out": ({"low/a.hpp": "", "sim/s.cpp": '#include "low/a.hpp"\n'}, ["low"], 0),
    }
    failed = 0
    for name, (files, drawing, expected) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            bench = Path(d)
            tree(bench, files, drawing)
            *_, problems = analyse(bench, declared_floors(bench / "README.md"))
            if len(problems) != expected:
                failed += 1
                print(f"self-test {name!r}: {len(problems)} problem(s), expected {expected}: {problems}")
    print(f"self-test: {len(cases) - failed}/{len(cases)} cases as expected")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=Path(__file__).resolve().parents[2] / "bench",
                    help="the bench/ folder (default: this checkout's)")
    ap.add_argument("--order", help="rooms lowest first, comma-separated, instead of the README's drawing "
                                    "(to measure another tree or order)")
    ap.add_argument("--check", action="store_true", help="exit 1 when an arrow runs up unallowed")
    ap.add_argument("--self-test", action="store_true", help="check the checker on small made-up trees")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    floors = args.order.split(",") if args.order else declared_floors(args.bench / "README.md")
    rooms, floor, arrows, up, problems = analyse(args.bench, floors)
    report(rooms, floor, arrows, up)
    for p in problems:
        print(f"bench_layers: {p}", file=sys.stderr)
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())

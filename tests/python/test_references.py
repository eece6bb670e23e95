"""Every reference in the repository resolves inside the repository.

- Path-like references to repository files (``docs/errata.md``, ``algorithms/ring/README.md``,
  ``bench/collrun``, ...) and relative Markdown links must name files that exist.
- Nothing may cite documents that live outside the repository (the old reading notes and design
  notes); papers are cited as "seed NNN" plus the paper's own section numbers, defined in
  docs/papers.md.
- ``collbench --list-algorithms`` names, for every registered algorithm, its source file and
  its documentation page: both must exist, and the family tables of docs/algorithms/README.md
  must list exactly the registered (collective, name, kind) triples.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_references.py
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
from pathlib import Path

import pytest

from collrepro.mpienv import ci_environment

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()

# Text files worth scanning; everything else (figures, CSV and JSON data, archives) is skipped.
TEXT_SUFFIXES = {
    ".md", ".cpp", ".hpp", ".h", ".inc", ".py", ".sh", ".cmake", ".txt", ".yaml", ".yml",
    ".xml", ".in", ".json", ".toml", ".cfg", ".ini",
}
# Under results/ only the hand-written pages and scripts; the rest is measured data and
# generated reports.
RESULTS_KEEP = re.compile(r"^results/(?:[^/]+/)*(?:README|CONTRACT)\.md$|^results/.*\.py$")

# Citations of documents that are not part of the repository (built from pieces so that this
# file does not match itself).
FORBIDDEN = [
    re.compile(r"\bspec " + "§"),
    re.compile(r"\bspec notes\b"),
    re.compile(r"\bspec/" + r"seed"),
    re.compile(r"shared/" + "spec"),
    re.compile("DESIGN" + r"\.md"),
]


def repo_files() -> list[Path]:
    """Tracked and not-ignored untracked files that exist in the working tree."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode()
    return sorted({ROOT / p for p in out.split("\0") if p and (ROOT / p).is_file()})


def is_text_to_scan(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    if path == THIS:
        return False
    if rel.startswith("results/") and not RESULTS_KEEP.match(rel):
        return False
    if path.suffix not in TEXT_SUFFIXES and not (path.suffix == "" and is_script(path)):
        return False
    return True


def is_script(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def read_text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def scanned() -> list[tuple[Path, str]]:
    files = []
    for p in repo_files():
        if is_text_to_scan(p):
            text = read_text(p)
            if text is not None:
                files.append((p, text))
    return files


def top_level_dirs() -> list[str]:
    dirs = {p.relative_to(ROOT).parts[0] for p in repo_files() if len(p.relative_to(ROOT).parts) > 1}
    return sorted(d for d in dirs if not d.startswith(".") or d == ".ci")


def path_pattern() -> re.Pattern[str]:
    names = "|".join(re.escape(d) for d in top_level_dirs())
    # A path starts at a top-level directory that is not the tail of a longer path or URL.
    return re.compile(r"(?<![\w./~$@-])(?:" + names + r")/[\w./+-]*")


# What follows a match that makes it a pattern, not a path: globs, placeholders, variables.
PATTERN_TAIL = set("*<{$[%(")


def ignored(paths: list[str]) -> set[str]:
    if not paths:
        return set()
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT, input="\n".join(paths),
        capture_output=True, text=True,
    ).stdout
    return set(out.split())


def build_outputs() -> set[str]:
    """Executables the build puts at the same relative path in the build tree, e.g.
    bench/collbench (add_executable in bench/CMakeLists.txt)."""
    out = set()
    for cmake in ROOT.rglob("CMakeLists.txt"):
        rel = cmake.parent.relative_to(ROOT)
        if rel.parts and rel.parts[0] == "build":
            continue
        for target in re.findall(r"add_executable\(\s*([\w-]+)", cmake.read_text(encoding="utf-8")):
            out.add((rel / target).as_posix())
    return out


# Under results/ a reference without a data or document suffix names an output directory of an
# example command (results/quick/openmpi-4.1.4/), not a file of the repository.
RESULT_FILE_SUFFIXES = {".md", ".py", ".csv", ".json", ".png", ".pdf", ".yaml"}


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def test_no_citation_of_documents_outside_the_repository():
    bad = []
    for path, text in scanned():
        for pattern in FORBIDDEN:
            for m in pattern.finditer(text):
                rel = path.relative_to(ROOT).as_posix()
                bad.append(f"{rel}:{line_of(text, m.start())}: {m.group(0)!r}")
    assert not bad, (
        "citations of documents that are not in the repository (cite the paper as 'seed NNN "
        "§x' and docs/...; see docs/papers.md):\n" + "\n".join(bad)
    )


def test_repository_paths_exist():
    pattern = path_pattern()
    outputs = build_outputs()
    found: dict[str, list[str]] = {}
    for path, text in scanned():
        rel = path.relative_to(ROOT).as_posix()
        for m in pattern.finditer(text):
            ref = m.group(0)
            end = m.end()
            if end < len(text) and text[end] in PATTERN_TAIL:
                continue
            if text[max(0, m.start() - 2):m.start()] == "](":
                continue  # a Markdown link target: relative to its page, checked below
            ref = ref.rstrip(".,;:")
            if not ref or ref.endswith("/.") or "//" in ref or ref in outputs:
                continue
            if ref.startswith("results/") and Path(ref).suffix not in RESULT_FILE_SUFFIXES:
                continue
            found.setdefault(ref, []).append(f"{rel}:{line_of(text, m.start())}")
    missing = {ref: where for ref, where in found.items() if not (ROOT / ref).exists()}
    # Git-ignored places (build trees, results/local/ scratch) are outputs, not references.
    as_path = {form: ref for ref in missing for form in (ref.rstrip("/"), ref.rstrip("/") + "/")}
    for form in ignored(sorted(as_path)):
        missing.pop(as_path[form], None)
    lines = [f"{w}: {ref}" for ref, where in sorted(missing.items()) for w in where]
    assert not lines, "references to repository files that do not exist:\n" + "\n".join(lines)


MD_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def test_relative_markdown_links_exist():
    bad = []
    for path, text in scanned():
        if path.suffix != ".md":
            continue
        for m in MD_LINK.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # URLs, mail, anchors in the same page
            target = target.split("#", 1)[0]
            if not (path.parent / target).exists():
                rel = path.relative_to(ROOT).as_posix()
                bad.append(f"{rel}:{line_of(text, m.start())}: {m.group(1)}")
    assert not bad, "relative Markdown links to files that do not exist:\n" + "\n".join(bad)


# ---- the registry: collbench --list-algorithms ----------------------------------------------

def newest_source_mtime() -> float:
    paths = [p for p in (ROOT / "algorithms").rglob("*") if p.suffix in {".cpp", ".hpp"}]
    paths.append(ROOT / "bench" / "output" / "algorithm_list.cpp")
    return max(p.stat().st_mtime for p in paths if p.exists())


def collbench() -> Path:
    """A collbench binary built from the current sources, or skip."""
    env = os.environ.get("COLLREPRO_COLLBENCH")
    candidates = [Path(env)] if env else []
    candidates += [ROOT / "build" / d / "bench" / "collbench" for d in ("openmpi", "h1")]
    present = [c for c in candidates if c.is_file() and os.access(c, os.X_OK)]
    if not present:
        pytest.skip("no collbench binary (build/openmpi/bench/collbench, build/h1/bench/collbench or "
                    "$COLLREPRO_COLLBENCH); build it to check the registry")
    newest = newest_source_mtime()
    fresh = [c for c in present if c.stat().st_mtime >= newest]
    if not fresh:
        pytest.skip(f"{', '.join(str(c) for c in present)} is older than the sources in algorithms/; "
                    "rebuild collbench to check the registry")
    return max(fresh, key=lambda c: c.stat().st_mtime)


def registry() -> list[dict[str, str]]:
    binary = collbench()
    run = subprocess.run([str(binary), "--list-algorithms"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, **ci_environment()})
    assert run.returncode == 0, f"{binary} --list-algorithms failed:\n{run.stderr}"
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert rows, f"{binary} --list-algorithms listed nothing"
    if "file" not in rows[0] or "doc" not in rows[0]:
        pytest.skip(f"{binary} predates the file and doc columns of --list-algorithms; rebuild it")
    return rows


def test_listed_source_files_and_doc_pages_exist():
    bad = []
    for row in registry():
        what = f"{row['collective']}/{row['algorithm']}"
        if not row["file"] or not (ROOT / row["file"]).is_file():
            bad.append(f"{what}: source file {row['file']!r} does not exist")
        if not (ROOT / row["doc"]).is_file():
            bad.append(f"{what}: documentation page {row['doc']} does not exist")
    assert not bad, "\n".join(bad)


# ---- the family tables of docs/algorithms/README.md -------------------------------------------

def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def plain(cell: str) -> str:
    """`name` or [`name`](docs/...) -> name."""
    m = re.search(r"`([^`]+)`", cell)
    return m.group(1) if m else cell.strip()


FAMILY_TABLES = ROOT / "docs" / "algorithms" / "README.md"
FAMILY_SECTION = "## The algorithms by family"


def documented_algorithms() -> set[tuple[str, str, str]]:
    """(collective, name, kind) of every row of the tables in docs/algorithms/README.md's section
    "The algorithms by family" (up to the next level-2 heading). The collective comes from a
    `collective` column when the table has one, else from the backquoted names in the heading
    above the table."""
    text = FAMILY_TABLES.read_text(encoding="utf-8")
    m = re.search(r"^" + re.escape(FAMILY_SECTION) + r"\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert m, f"docs/algorithms/README.md has no '{FAMILY_SECTION}' section"
    out: set[tuple[str, str, str]] = set()
    heading: list[str] = []
    lines = m.group(1).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("### "):
            heading = re.findall(r"`([a-z][a-z-]*)`", line)
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|\s*-", lines[i + 1]):
            header = [h.lower() for h in cells(line)]
            i += 2
            if "name" not in header or "kind" not in header:
                continue
            col = next((header.index(h) for h in ("collective", "collectives") if h in header), None)
            while i < len(lines) and lines[i].startswith("|"):
                row = cells(lines[i])
                name, kind = plain(row[header.index("name")]), row[header.index("kind")].strip()
                collectives = re.findall(r"`([a-z][a-z-]*)`", row[col]) if col is not None else heading
                assert collectives, f"docs/algorithms/README.md: no collective for the row of {name!r}"
                out.update((c, name, kind) for c in collectives)
                i += 1
            continue
        i += 1
    return out


def test_family_tables_match_the_registry():
    registered = {(r["collective"], r["algorithm"], r["kind"]) for r in registry()}
    listed = documented_algorithms()
    missing = sorted(registered - listed)
    extra = sorted(listed - registered)
    assert not missing and not extra, (
        "docs/algorithms/README.md's family tables and the registry differ:\n"
        + "".join(f"  registered but not in the tables: {c} {n} ({k})\n" for c, n, k in missing)
        + "".join(f"  in the tables but not registered: {c} {n} ({k})\n" for c, n, k in extra)
    )


def test_every_documented_algorithm_has_a_page_and_a_registration():
    """Without a build: every name in docs/algorithms/README.md's family tables has
    docs/algorithms/<name>.md and appears as a string literal in algorithms/, and every page names
    such an algorithm."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "algorithms").rglob("*.cpp"))
    names = {n for _, n, _ in documented_algorithms()}
    bad = [f"{n}: no docs/algorithms/{n}.md" for n in sorted(names) if not (ROOT / "docs/algorithms" / f"{n}.md").is_file()]
    bad += [f"{n}: never registered in algorithms/" for n in sorted(names) if f'"{n}"' not in sources]
    pages = {p.stem for p in (ROOT / "docs/algorithms").glob("*.md")} - {"README"}
    bad += [f"docs/algorithms/{p}.md: not an algorithm of the family tables" for p in sorted(pages - names)]
    assert not bad, "\n".join(bad)

"""A fuzz run's directory: what it was asked (run.json), every launch as one JSON line
(runs.jsonl, appended and synced, so an interrupted run loses at most the launch it was in), its
findings (findings/<id>/: case.txt, repro.c, finding.json) and summary.md. A re-run of the same
command reads runs.jsonl and starts after the last launch it holds. failures.csv.gz lists the case
runs that did not pass (what to keep beside summary.md when runs.jsonl is too large to keep)."""

import csv
import gzip
import io
import json
import os
from collections import Counter

from .. import safeio

SETTINGS_KEYS = ("seed", "max_np")
FAILURES_FILE = "failures.csv.gz"


class Store:
    def __init__(self, out, settings):
        self.out = out
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "run.json")
        if os.path.exists(path):
            old = safeio.load_json_file(path, 1 << 20, "the fuzz run's settings")
            for key in SETTINGS_KEYS:
                if old.get(key) != settings[key]:
                    raise safeio.UserError(f"{out} holds a run with {key} {old.get(key)}, not {settings[key]}: "
                                           f"use another --out, or the same {key} to resume it")
        safeio.write_json(path, settings)
        self.records = self._read()

    def _read(self):
        """The launches on disk; a torn last line (a kill mid-write) is dropped and the file
        rewritten without it."""
        path = os.path.join(self.out, "runs.jsonl")
        if not os.path.exists(path):
            return []
        records, torn = [], False
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    torn = True
        if torn:
            safeio.write_text(path, "".join(json.dumps(r) + "\n" for r in records))
        return records

    def case_records(self):
        return [r for r in self.records if r.get("type") == "case"]

    def done(self):
        """{(case index, installation, target)} already run."""
        return {(r["index"], r["installation"], r["target"]) for r in self.case_records()}

    def add(self, record):
        with open(os.path.join(self.out, "runs.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.records.append(record)

    def finding_dir(self, finding_id):
        return os.path.join(self.out, "findings", finding_id)

    def findings(self):
        """The finding.json of every finding written so far."""
        root = os.path.join(self.out, "findings")
        out = []
        for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            path = os.path.join(root, name, "finding.json")
            if os.path.exists(path):
                out.append(safeio.load_json_file(path, 1 << 20, "a fuzz finding"))
        return out

    def summary(self, settings, stopped=""):
        """summary.md: by installation and call form the cases run through the MPI library's
        own call and through the project's doors, and their failures by kind; by target, what
        the PMPI library served; the findings."""
        recs = self.case_records()
        kinds = ("ok", "mismatch", "error", "hang", "crash", "unavailable", "bad case")
        door = lambda t: "native" if t == "native" else "project"  # noqa: E731
        by_form = Counter((r["installation"], r["form"], door(r["target"]), r["outcome"]) for r in recs)
        cases_of = {}
        for r in recs:
            cases_of.setdefault((r["installation"], r["form"], door(r["target"])), set()).add(r["index"])
        lines = [f"# Fuzz run: seed {settings['seed']}, {len({r['index'] for r in recs})} cases, "
                 f"{len(recs)} case runs", "",
                 f"Command: `{settings['command']}`. Host: {settings['host']}.", ""]
        if stopped:
            lines += [f"Stopped early: {stopped}. The same command resumes.", ""]
        if settings.get("idle_yield"):
            lines += [f"Every launch of {', '.join(settings['idle_yield'])} preloaded `fuzz/mpich_yield.c`: its waiting "
                      "ranks give up the core (MPICH's ch4 device spins), which changes when ready ranks run and "
                      "touches no message. The reproducers run without it.", ""]
        lines += ["A case run is one case through one door: `native` is the MPI library's own call; `project` the",
                  "PMPI library under its defaults and each algorithm offering the form, forced. Every received",
                  "byte is checked; error: a call returned an error code; hang: no end within the timeout.", "",
                  "| installation | form | door | cases | case runs | " + " | ".join(kinds) + " |",
                  "| --- | --- | --- | ---: | ---: | " + " | ".join("---:" for _ in kinds) + " |"]
        for key in sorted(cases_of):
            runs = sum(by_form.get((*key, k), 0) for k in kinds)
            lines.append(f"| {' | '.join(key)} | {len(cases_of[key])} | {runs} | "
                         + " | ".join(str(by_form.get((*key, k), 0)) for k in kinds) + " |")
        served, runs_of = Counter(), Counter()
        for b in (r for r in self.records if r.get("type") == "batch"):
            runs_of[(b["installation"], b["target"])] += b["cases"]
            for by in b["served"].values():
                served[(b["installation"], b["target"])] += by.get(b["target"], 0)
        lines += ["", "Calls served by the forced algorithm itself (the PMPI library's report; the shapes it does",
                  "not support went to the MPI library):", "",
                  "| installation | target | case runs | calls it served |", "| --- | --- | ---: | ---: |"]
        for (inst, target), n in sorted(runs_of.items()):
            if target not in ("native", "defaults"):
                lines.append(f"| {inst} | {target} | {n} | {served[(inst, target)]} |")
        found = self.findings()
        lines += ["", f"## Findings ({len(found)})", ""]
        if not found:
            lines.append("None: every case run gave every byte the reference says.")
        for f in found:
            lines.append(f"- `{f['id']}`: {f['outcome']} on {f['installation']} through {f['target']}"
                         f" ({f['fault']}); {f['case_text']}; minimised in {f['minimise_launches']} launches;"
                         f" `findings/{f['id']}/repro.c`" + (f"; known: {f['known']}" if f.get("known") else "")
                         + (f"; it needs the cases before it: `findings/{f['id']}/batch.txt` (intercase -f)"
                            if f.get("batch_only") else ""))
        safeio.write_text(os.path.join(self.out, "summary.md"), "\n".join(lines) + "\n")
        self.write_failures(recs)
        return found

    def write_failures(self, recs):
        """failures.csv.gz: every case run that did not pass, with its case and what it printed
        (small beside runs.jsonl, which holds every run: the file to keep with summary.md; gzip, as a
        library with a frequent known fault fails thousands of times in 20,000 cases)."""
        keys = ("index", "installation", "version", "target", "coll", "form", "np", "outcome", "case", "detail")
        rows = [[str(r.get(k, "")) for k in keys] for r in recs if r["outcome"] != "ok"]
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(keys)
        writer.writerows(rows)
        safeio.write_bytes(os.path.join(self.out, FAILURES_FILE), gzip.compress(buf.getvalue().encode(), mtime=0))

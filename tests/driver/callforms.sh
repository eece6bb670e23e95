#!/usr/bin/env bash
# The call form as an axis (issue 37): one launch with call: [blocking, nonblocking, persistent]
# over halfduplex-fc and native (which offer every form) and, in a second setting,
# fullduplex-allgatherv-ordered (blocking only: its receive order is a blocking call's):
#   - the plan lists every (algorithm, form); fullduplex-allgatherv-ordered's other forms are
#     skipped with the reason (and native's where the capability probe found the library's form
#     missing or wrong), and the results hold exactly the plan's points (call is part of their
#     identity);
#   - init_s is a positive time for every persistent point and empty for the others;
#   - every nonblocking and persistent point was validated (several starts, new data each);
#   - analyze report reads them and writes the call-form section (callforms.csv, one row per
#     algorithm and size with each form's median);
# and a call form outside the contract's set is refused: exit 2, one line naming the field.
source "$(dirname "$0")/lib.sh"
ANALYZE=$REPO/analysis/analyze
CFG=cfg.yaml
cat >"$CFG" <<'YAML'
experiment: callforms-check
description: the call form as an axis (tests/driver/callforms.sh)
sizes: [4KiB]
call: [blocking, nonblocking, persistent]
timing: {sync: barrier, clock: monotonic, warmup: 1, reps: 5}
validation: true
launches: 1
settings:
  - name: every form
    collective: allgather
    algorithms: [halfduplex-fc, native]
    groups: {ratios: ["1/1", "3/1"]}
    blocks: ["1:0"]
  - name: blocking only
    collective: allgatherv
    algorithms: [fullduplex-allgatherv-ordered]
    groups: {ratios: ["1/1"]}
    distributions: [equal]
YAML

run_bench "$CFG" --dry-run --format csv >plan.csv
run_bench "$CFG" --out out --quiet || fail "exit code $?"
$CHECK out --plan plan.csv --reps 5 --launches 1
$PY - <<'PY'
import csv, json, math
plan = list(csv.DictReader(open("plan.csv")))
summary = list(csv.DictReader(open("out/summary-L0.csv")))
caps = json.load(open("out/meta-L0.json"))["capabilities"]
# The library's own forms are there where the capability probe found them working (Open MPI 4.1.4
# both; MPICH 4.0.2's MPI_Allgather_init on an intercommunicator fails the probe), else skipped
# with the probe's finding.
library = {"nonblocking": caps["inter_nonblocking"], "persistent": caps["inter_persistent"]}
skipped = [r for r in plan if r["supported"] == "0"]
for r in skipped:
    if r["algorithm"] == "fullduplex-allgatherv-ordered":
        assert r["call"] != "blocking" and "offers no " + r["call"] + " call" in r["reason"], r
    else:
        assert r["algorithm"] == "native" and not library[r["call"]] and "failed the probe" in r["reason"], r
assert any(r["algorithm"] == "fullduplex-allgatherv-ordered" for r in skipped), (
    "fullduplex-allgatherv-ordered's other forms were not skipped")
forms = {(r["algorithm"], r["p"], r["call"]) for r in summary}
for algorithm in ("halfduplex-fc", "native"):
    for p in ("2", "3"):
        for call in ("blocking", "nonblocking", "persistent"):
            assert (algorithm, p, call) in forms or (algorithm == "native" and not library[call]), (algorithm, p, call)
for r in summary:
    where = f"point {r['point']} ({r['algorithm']}, {r['call']})"
    if r["call"] == "persistent":
        assert r["init_s"] not in ("", "nan") and 0 < float(r["init_s"]) < 60, where + f": init_s {r['init_s']!r}"
    else:
        assert r["init_s"] == "", where + f": init_s {r['init_s']!r} for a call without an init"
    assert r["median"] not in ("", "nan") and float(r["median"]) > 0, where
print(f"{len(summary)} points, {len(skipped)} skipped forms; persistent init "
      f"{min(float(r['init_s']) for r in summary if r['call'] == 'persistent'):.3g} s and up")
PY
"$ANALYZE" report out -o report >/dev/null || fail "analyze report"
$PY - <<'PY'
import csv
rows = list(csv.DictReader(open("report/callforms.csv")))
hd = [r for r in rows if r["algorithm"] == "halfduplex-fc"]
assert len(hd) == 2 and all(r[f"{f}_s"] not in ("", "nan") for r in hd for f in ("blocking", "nonblocking", "persistent")), hd
assert "## Call forms" in open("report/report.md").read()
PY

rc=0
run_bench "$CFG" --out bad --set "call=[blocking, sometimes]" 2>err.txt || rc=$?
((rc == 2)) && grep -q 'config error: call\[1\] = "sometimes" is not a call form (use blocking | nonblocking | persistent)' err.txt \
  || { cat err.txt >&2; fail "bad call form: exit $rc"; }
[[ ! -e bad ]] || fail "a refused configuration wrote bad/"
echo "PASS call forms"

#!/usr/bin/env bash
# Per-phase timing (timing.phases, issue #27): every inter-group and ring algorithm at 2:2, 3:1
# and 1:3, half- and full-duplex, with barrier and window sync (Allgather) and the Allgatherv ones:
#  - the phases file has, for every repetition of every point, the algorithm's phases, each
#    non-negative, and they add up to the repetition's time_s within the clock's resolution;
#  - the named phases are the ones the executors mark (halfduplex-fc, root-gathering, ...);
#  - a run again into a complete launch changes nothing; a launch whose phases file went
#    missing is measured again (its phases are not trusted to be elsewhere), not left without.
source "$(dirname "$0")/lib.sh"
CFG=$REPO/configs/quick.yaml
# One size and three repetitions: the checks are per repetition and per algorithm, not per size;
# MPICH's busy-polling ranks (4 on 2 cores) made two sizes and five repetitions cost 140 s.
SETS=(--set "groups.ratios=[1/1, 3/1, 1/3]" --set "blocks=[1:0, 1:1]" --set "sizes=[8KiB]"
      --set timing.reps=3 --set timing.warmup=1 --set launches=1 --set timing.phases=true)

check() {
  $PY - "$1" <<'PY'
import csv, json, sys
from collections import defaultdict
d = sys.argv[1]
meta = json.load(open(f"{d}/meta-L0.json"))
resolution = meta["clock"]["resolution_s"]
raw = list(csv.DictReader(open(f"{d}/raw-L0.csv")))
ph = list(csv.DictReader(open(f"{d}/phases-L0.csv")))
assert ph and raw, "no rows"
by_rep = defaultdict(list)
for r in ph:
    by_rep[(r["point"], r["rep"])].append(r)
names = defaultdict(set)
worst = 0.0
for r in raw:
    rows = sorted(by_rep.pop((r["point"], r["rep"]), []), key=lambda x: int(x["phase_index"]))
    assert rows, f"point {r['point']} rep {r['rep']} ({r['algorithm']}): no phase rows"
    assert [int(x["phase_index"]) for x in rows] == list(range(len(rows)))
    assert all(float(x["phase_s"]) >= 0 for x in rows)
    total = sum(float(x["phase_s"]) for x in rows)
    worst = max(worst, abs(total - float(r["time_s"])))
    assert abs(float(rows[-1]["phase_end_s"]) - float(r["time_s"])) <= resolution
    names[(r["algorithm"], r["p"], r["q"], r["kb"] == "0")].add(tuple(x["phase"] for x in rows))
assert not by_rep, f"phase rows without a raw row: {sorted(by_rep)[:3]}"
assert worst <= resolution, f"phases differ from time_s by {worst} s (resolution {resolution} s)"
for key, seen in names.items():
    assert len(seen) == 1, f"{key}: different phases across repetitions: {seen}"
want = {("halfduplex-fc", "3", "1", True): ("pair-send", "allgather-G"),
        ("halfduplex-fc", "1", "3", True): ("group-bcast", "subgroup-allgatherv"),
        ("root-gathering", "2", "2", False): ("gather", "root-exchange", "bcast"),
        ("fullduplex-allgather", "2", "2", False): ("exchange", "group-allgatherv"),
        ("eurompi-twostep", "3", "1", False): ("exchange", "step-1", "step-2"),
        ("native", "2", "2", True): ("call",),
        ("halfduplex-ring", "2", "2", True): ("call",)}
if raw[0]["collective"] == "allgatherv":
    want = {("fullduplex-allgatherv", "2", "2", False): ("offsets", "exchange", "group-allgatherv"),
            ("fullduplex-allgatherv-ordered", "3", "1", False): ("offsets", "exchange", "group-allgatherv"),
            ("fullduplex-allgatherv-ring", "3", "1", False): ("offsets", "exchange", "group-allgatherv"),
            ("root-gathering", "1", "3", True): ("gather", "root-exchange", "bcast")}
for key, phases in want.items():
    assert names.get(key) == {phases}, f"{key}: {names.get(key)}, expected {phases}"
algos = {a for a, *_ in names}
print(f"{len(raw)} repetitions of {len(algos)} algorithms ({', '.join(sorted(algos))}); "
      f"largest |sum - time_s| {worst:.2g} s")
PY
}

for sync in barrier window; do
  run_bench "$CFG" --out "out-$sync" --quiet "${SETS[@]}" --set timing.sync=$sync || fail "$sync: exit code $?"
  check "out-$sync" || fail "$sync: the phases file is wrong"
done
run_bench "$CFG" --out out-v --quiet "${SETS[@]}" --set collective=allgatherv --set "distributions=[arithmetic]" \
  || fail "allgatherv: exit code $?"
check out-v || fail "allgatherv: the phases file is wrong"

sum_before=$(sha256sum out-barrier/phases-L0.csv)
run_bench "$CFG" --out out-barrier --quiet "${SETS[@]}" --set timing.sync=barrier 2>err.txt || fail "re-run: exit $?"
[[ $(sha256sum out-barrier/phases-L0.csv) == "$sum_before" ]] || fail "a re-run into a complete launch changed its phases"

rm out-barrier/phases-L0.csv
run_bench "$CFG" --out out-barrier --quiet "${SETS[@]}" --set timing.sync=barrier 2>err.txt || fail "resume: exit $?"
grep -q "phases-L0.csv is missing" err.txt || { cat err.txt >&2; fail "the missing phases file was not named"; }
check out-barrier || fail "the phases file was not rebuilt"
echo "phases: ok"

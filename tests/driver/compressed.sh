#!/usr/bin/env bash
# Compressed result files (raw-L0.csv.gz, collrepro-py compact): a resume trusts a complete
# compressed launch after its integrity check and leaves it compressed; a damaged one is
# re-measured and written plain (no .gz left beside it); both forms of one file, or a truncated
# .gz, are refused with one line; the analysis reads the compressed form.
source "$(dirname "$0")/lib.sh"
ANALYZE=$REPO/analysis/analyze
COMPACT() { PYTHONPATH="$REPO/python" $PY -m collrepro compact "$@"; }

printf 'experiment: t\ncollective: allgather\nsizes: [1KiB, 2KiB, 4KiB]\nalgorithms: [native]\nlaunches: 1\ntiming: {reps: 3, warmup: 1}\n' >r.yaml
run_bench r.yaml --dry-run --format csv >plan.csv
run_bench r.yaml --out good --quiet || fail "first run"
plain=$(cat good/raw-L0.csv good/summary-L0.csv good/meta-L0.json | md5sum)

# Compact: the --check dry run changes nothing and exits 1; the run leaves only .gz files that
# decompress to the original bytes; a second --check finds nothing (exit 0).
cp -r good c
rc=0; COMPACT --check c >/dev/null || rc=$?
((rc == 1)) && [[ -f c/raw-L0.csv && ! -e c/raw-L0.csv.gz ]] || fail "--check: exit $rc or changed files"
COMPACT c >/dev/null || fail "compact"
[[ ! -e c/raw-L0.csv && ! -e c/summary-L0.csv && ! -e c/meta-L0.json ]] || fail "plain files left by compact"
[[ $plain == "$(zcat c/raw-L0.csv.gz c/summary-L0.csv.gz c/meta-L0.json.gz | md5sum)" ]] || fail "compressed bytes differ"
COMPACT --check c >/dev/null || fail "--check after compact"

# A complete compressed launch: nothing to do, nothing changed.
packed=$(md5sum c/*.gz)
run_bench r.yaml --out c 2>err.txt || { cat err.txt >&2; fail "resume of the compressed launch"; }
grep -q 'already complete: nothing to do' err.txt || { cat err.txt >&2; fail "compressed launch not trusted"; }
[[ $packed == "$(md5sum c/*.gz)" && ! -e c/raw-L0.csv ]] || fail "resume changed the compressed files"
"$ANALYZE" aggregate c >/dev/null || fail "analysis of the compressed directory"

# A damaged compressed launch (one raw row dropped): re-measured, then plain files only.
cp -r c d
zcat c/raw-L0.csv.gz | sed 3d | gzip >d/raw-L0.csv.gz
run_bench r.yaml --out d 2>err.txt || { cat err.txt >&2; fail "resume of the damaged compressed launch"; }
grep -q "collbench: warning: d: .*damaged or missing, measured again" err.txt || { cat err.txt >&2; fail "damage not named"; }
[[ -f d/raw-L0.csv && -f d/meta-L0.json ]] && ! ls d/*.gz >/dev/null 2>&1 || fail "both forms or no plain files after the resume"
$CHECK d --plan plan.csv --reps 3 --launches 1 >/dev/null || fail "d after the resume"

# Both forms of one file; a truncated .gz: one line each, exit 2, nothing written.
cp -r c b && cp good/raw-L0.csv b/
rc=0; run_bench r.yaml --out b >/dev/null 2>err.txt || rc=$?
((rc == 2)) && grep -q 'holds both raw-L0.csv and raw-L0.csv.gz' err.txt || { cat err.txt >&2; fail "both forms: exit $rc"; }
(( $(grep -c '^collbench:' err.txt) == 1 )) || fail "both forms: want one collbench line"
rc=0; "$ANALYZE" aggregate b >/dev/null 2>err.txt || rc=$?
((rc == 2)) && grep -q 'holds both raw-L0.csv and raw-L0.csv.gz' err.txt || { cat err.txt >&2; fail "analysis of both forms: exit $rc"; }
cp -r c t && head -c 100 c/summary-L0.csv.gz >t/summary-L0.csv.gz
rc=0; run_bench r.yaml --out t >/dev/null 2>err.txt || rc=$?
((rc == 2)) && grep -q 'summary-L0.csv.gz: the gzip data ends early' err.txt || { cat err.txt >&2; fail "truncated .gz: exit $rc"; }
[[ ! -e t/summary-L0.csv.tmp ]] || fail "a refused resume wrote files"
echo "PASS compressed result files"

#!/usr/bin/env bash
# ctest install.<flavor>.prefix (label install, Open MPI build): cmake --install into a temporary
# prefix, move the prefix elsewhere (relocatable), and from outside the source tree:
#   - no installed text file and no RUNPATH names the build or the source directory;
#   - P/bin/collrepro-py run: a sweep of 8 points at 2 processes (the installed collbench and configs);
#   - the checkout-only verbs (mpi collbench, sim) and run --mpi of the other library refuse in one line
#     (exit 5, nothing written into P); versions plans its output under the working directory;
#   - P/bin/collrepro-py analyze report on it, and slurm submit --dry-run (the installed template);
#   - find_package(collrepro): a program lists the registry, which must equal collbench's;
#   - pkg-config finds the PMPI library, and LD_PRELOAD of it serves an inter-group MPI_Allgather.
# Environment (ctest sets it): BUILD, REPO, MPIEXEC, MPIEXEC_EXTRA, the MPI test environment;
# WORK (default: a new temporary directory, removed when the test passes).
set -euo pipefail
: "${BUILD:?}" "${REPO:?}" "${MPIEXEC:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "[install +${SECONDS}s] $*"; }
if [[ -z ${WORK:-} ]]; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/collrepro-install.XXXXXX")
  trap '[[ $? -ne 0 ]] || rm -rf "$WORK"' EXIT
fi
rm -rf "$WORK" && mkdir -p "$WORK/outside"
case $WORK/ in "$REPO"/*) fail "WORK ($WORK) must lie outside the source tree";; esac

step "cmake --install into $WORK/staged, then moved to $WORK/prefix"
cmake --install "$BUILD" --prefix "$WORK/staged" >"$WORK/install.log" || fail "cmake --install failed: $WORK/install.log"
mv "$WORK/staged" "$WORK/prefix"
P=$WORK/prefix
cd "$WORK/outside"
leaks=$(grep -rIl -e "$REPO" -e "$BUILD" -e "$WORK/staged" "$P" || true)
[[ -z $leaks ]] || fail "installed files name the build or source tree: $leaks"
for f in "$P/bin/collbench" "$P"/lib/libcollrepro_pmpi.so; do
  if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -q -e "$REPO" -e "$BUILD"; then fail "$f: RUNPATH names the build tree"; fi
done

step "collrepro run: 8 points at 2 processes"
SHRINK=(--set 'groups.ratios=[1/1]' --set 'blocks=["1:0", "1:1"]' --set 'sizes=[1KiB, 4KiB]'
        --set 'algorithms=[native, fullduplex-allgather]' --set timing.reps=3 --set timing.warmup=1)
"$P/bin/collrepro-py" run --np 2 --launches 1 --out sweep "$P/share/collrepro/configs/quick.yaml" -- --quiet "${SHRINK[@]}" ||
  fail "collrepro run failed"
rows=$(tail -n +2 sweep/summary-L0.csv | wc -l)
((rows == 8)) || fail "expected 8 summary rows, got $rows"

step "checkout-only verbs refuse in one line; outputs default to the working directory"
one_line_5() {  # one_line_5 NEEDLE COMMAND...: exit 5, one line naming NEEDLE, nothing written into P
  local rc=0 before; before=$(find "$P" | wc -l)
  "${@:2}" >out.txt 2>err.txt || rc=$?
  ((rc == 5)) || { cat err.txt; fail "$*: exit $rc, want 5"; }
  (( $(wc -l <err.txt) == 1 )) && grep -q -- "$1" err.txt || { cat err.txt; fail "$*: want one line naming '$1'"; }
  (( $(find "$P" | wc -l) == before )) || fail "$*: wrote into the prefix"
}
one_line_5 "needs a checkout of the sources" "$P/bin/collrepro-py" mpi collbench --all
one_line_5 "needs a checkout of the sources" "$P/bin/collrepro-py" sim run --platform \
  "$P/share/collrepro/configs/platforms/flat-crossbar.xml" --np 4 "$P/share/collrepro/configs/quick.yaml"
one_line_5 "built with openmpi, not mpich" "$P/bin/collrepro-py" run --mpi mpich --np 2 --launches 1 --out mpich \
  "$P/share/collrepro/configs/quick.yaml"
[[ ! -e mpich ]] || fail "collrepro run --mpi mpich wrote its output directory"
"$P/bin/collrepro-py" versions --dry-run --installations openmpi >versions.txt 2>&1 || { cat versions.txt; fail "versions --dry-run failed"; }
grep -q "into $PWD/results/local/versions/" versions.txt || { cat versions.txt; fail "versions does not plan its output in the working directory"; }

step "collrepro analyze report"
"$P/bin/collrepro-py" analyze report sweep -o report >/dev/null || fail "collrepro analyze report failed"
grep -q "fullduplex-allgather" report/report.md || fail "the report does not name the algorithm it measured"

step "collrepro slurm submit --dry-run: the batch script from the installed template"
"$P/bin/collrepro-py" slurm submit "$P/share/collrepro/configs/quick.yaml" --np 2 --launches 1 --out dryrun --dry-run \
  "${SHRINK[@]}" >slurm.log || { cat slurm.log; fail "collrepro slurm submit --dry-run failed"; }
grep -q "^COLLBENCH=.*$P/bin/collbench" dryrun/openmpi/collslurm.sbatch ||
  fail "the batch script does not run the installed collbench"

step "find_package(collrepro): a consumer program"
cmake -S "$REPO/tests/install/consumer" -B consumer -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release \
  >consumer.log 2>&1 || { cat consumer.log; fail "the consumer does not configure"; }
cmake --build consumer -j2 >>consumer.log 2>&1 || { cat consumer.log; fail "the consumer does not build"; }
consumer/registry | sort >registry.txt || fail "the consumer's registry lacks fullduplex-allgather"
"$P/bin/collbench" --list-algorithms | tail -n +2 | cut -d, -f1,2 | tr , ' ' | sort >collbench.txt
{ [[ -s registry.txt ]] && cmp -s registry.txt collbench.txt; } ||
  fail "the installed library's registry differs from collbench's: $(diff registry.txt collbench.txt | head -5)"

step "pkg-config and LD_PRELOAD"
lib=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --variable=libdir collrepro-pmpi)/libcollrepro_pmpi.so
[[ $lib -ef $P/lib/libcollrepro_pmpi.so ]] || fail "pkg-config points at $lib"
# shellcheck disable=SC2086  # MPIEXEC_EXTRA: launcher words
"$MPIEXEC" -n 2 ${MPIEXEC_EXTRA:-} -x LD_PRELOAD="$lib" -x COLLREPRO_PMPI_FORCE=fullduplex-allgather \
  -x COLLREPRO_PMPI_REPORT=1 consumer/allgather 2>preload.err || { cat preload.err; fail "the preloaded run failed"; }
grep -q "collrepro-pmpi: served allgather fullduplex-allgather 2" preload.err ||
  { cat preload.err; fail "the preloaded library did not serve the MPI_Allgather"; }
step "PASS"

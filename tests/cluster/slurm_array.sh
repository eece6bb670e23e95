#!/usr/bin/env bash
# cluster.slurm_array (ctest, label cluster; root): a multi-node Slurm job array on the emulated cluster.
#
#  1. up at 2 nodes x 2 cores, 100 Mbit/s, with --slurm: sinfo shows both nodes idle;
#  2. collslurm submit (through `cluster run`): one launch of 6 slow points (window sync) in 2
#     slices = 2 array tasks, each 4 processes on 2 nodes (mpirun inside the allocation);
#  3. the running task is cancelled after its first point: collect reports it incomplete
#     (exit 4); resubmit finishes it, the second run resuming the finished point; collect is whole;
#     every launch's metadata counts 2 nodes, puts ranks on crc-n0 and crc-n1, and carries the
#     cluster's measured link;
#  4. down: no daemon (munged, slurmctld, slurmd) and nothing else left.
# Environment (ctest sets them): COLLBENCH (an Open MPI collbench), REPO.
set -euo pipefail
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
COLLBENCH=${COLLBENCH:-$REPO/build/openmpi/bench/collbench}
export COLLREPRO_CLUSTER_DIR=${COLLREPRO_CLUSTER_DIR:-/run/collrepro-cluster}
CL=("$REPO/collrepro-py" cluster)
CS=("${CL[@]}" run -- "$REPO/slurm/collslurm")
t0=$SECONDS
step() { echo "[slurm_array +$((SECONDS - t0))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# alive PID: the process exists and has not exited (a zombie waits only for init to reap it)
alive() { [[ -e /proc/$1/stat && $(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1) != Z ]]; }
[[ $(id -u) == 0 ]] || { echo "SKIP: needs root"; exit 77; }
command -v slurmctld >/dev/null && command -v munged >/dev/null || { echo "SKIP: no slurm-wlm/munge"; exit 77; }
[[ -x $COLLBENCH ]] || fail "no collbench at $COLLBENCH"
COLLBENCH=$(realpath "$COLLBENCH")
BUILD=$(cd "$(dirname "$COLLBENCH")/.." && pwd)
cleanup() { "${CL[@]}" down >/dev/null 2>&1 || true; rm -rf "$WORK"; }

if ip netns list | grep -q '^crc-'; then  # someone's cluster (or a leftover): not ours to remove
  echo "SKIP: a cluster is up (ip netns list shows crc- names); run \`collrepro-py cluster down\` first"; exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cluster-slurm.XXXXXX")
trap cleanup EXIT
step "1. up with Slurm"
# the fidelity check is a measurement: a loaded machine may not hold 100 Mbit/s (cluster.up_down)
up=""
for rate in 100mbit 50mbit 20mbit; do
  code=0; "${CL[@]}" up --nodes 2 --cores-per-node 2 --link $rate --slurm --collbench "$COLLBENCH" 2>"$WORK/err" || code=$?
  [[ $code == 0 ]] && { up=$rate; break; }
  cat "$WORK/err" >&2
  [[ $code == 5 ]] && grep -q "fidelity check refused" "$WORK/err" || fail "up at $rate: exit $code"
done
[[ -n $up ]] || fail "the fidelity check refused every rate down to 20mbit"
idle=$("${CL[@]}" run -- sinfo -h -N -o '%N %T' | sort)
[[ $idle == $'crc-n0 idle\ncrc-n1 idle' ]] || fail "sinfo: $idle"

step "2. submit 2 array tasks of 4 processes on 2 nodes"
SLOW=(--set 'groups.ratios=[1/1]' --set 'sizes=[1KiB]' --set 'blocks=["1:0", "1:1"]'
      --set 'algorithms=[native, root-gathering, fullduplex-allgather]' --set timing.reps=50 --set timing.warmup=1
      --set timing.sync=window --set timing.window=20ms)
out=$("${CS[@]}" submit "$REPO/configs/quick.yaml" --out "$WORK/run" --build-dir "$BUILD" --np 4 --nodes 2 \
  --ntasks-per-node 2 --launches 1 --slices 2 --throttle 1 "${SLOW[@]}")
echo "$out"
job=$(sed -n 's/.*submitted job \([0-9]*\):.*/\1/p' <<<"$out")
[[ -n $job ]] || fail "no job id in: $out"
res=$WORK/run/openmpi

step "3. cancel the running task after its first point, collect, resubmit"
running="" deadline=$((SECONDS + 120))
while [[ -z $running ]]; do
  ((SECONDS < deadline)) || fail "no task was caught running with a finished point"
  while IFS='|' read -r t state; do
    [[ $state == RUNNING ]] || continue
    tmp=$res/summary-L0-S$t.csv.tmp
    if [[ -f $tmp && ! -f $res/summary-L0-S$t.csv ]] && (($(wc -l <"$tmp") >= 2)); then running=$t; fi
  done < <("${CL[@]}" run -- squeue -h -r -j "$job" -o '%K|%T' 2>/dev/null)
  [[ -n $running ]] || sleep 0.1
done
"${CL[@]}" run -- scancel "${job}_${running}"
step "cancelled task $running"
"${CS[@]}" status "$res" --wait --timeout 200 --interval 1 && fail "status says done after a cancellation"
code=0; "${CS[@]}" collect "$res" >/dev/null || code=$?
[[ $code == 4 ]] || fail "collect: exit $code with a task cancelled (want 4: incomplete)"
out=$("${CS[@]}" resubmit "$res")
echo "$out"
grep -q "resubmitted tasks $running as job" <<<"$out" || fail "resubmit: want task $running"
"${CS[@]}" status "$res" --wait --timeout 200 --interval 1 || fail "not done after resubmission"
"${CS[@]}" collect "$res" --into "$WORK/collected" || fail "collect: incomplete after resubmission"
/usr/bin/python3 - "$res" "$running" <<'PY'
import glob, json, sys
res, running = sys.argv[1], int(sys.argv[2])
metas = sorted(glob.glob(f"{res}/meta-L0-S*.json"))
assert len(metas) == 2, metas
for path in metas:
    m = json.load(open(path))
    hosts = sorted({b["host"] for b in m["bindings"]})
    assert m["nodes"] == 2 and m["nprocs"] == 4 and hosts == ["crc-n0", "crc-n1"], (path, m["nodes"], hosts)
    assert m["cluster"]["fidelity"]["ratio"] > 0, m.get("cluster")
    assert m["slurm"]["array_task_id"] is not None
runs = json.load(open(f"{res}/meta-L0-S{running}.json"))["runs"]
assert len(runs) == 2 and runs[1]["resumed_points"] >= 1, runs
print(f"2 tasks on crc-n0 and crc-n1; task {running} resumed {runs[1]['resumed_points']} finished point(s)")
PY

step "4. down"
pids=$(for ns in crc-n0 crc-n1; do ip netns pids $ns; done)
[[ -n $pids ]] || fail "no daemon in the nodes"
"${CL[@]}" down
for p in $pids; do ! alive "$p" || fail "process $p ($(cat /proc/$p/comm 2>/dev/null)) outlived down"; done
[[ -z $(ip netns list | grep '^crc-' || true) ]] || fail "namespaces left"
[[ ! -e $COLLREPRO_CLUSTER_DIR/slurm ]] || fail "Slurm state left"
step "PASS"

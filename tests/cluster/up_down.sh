#!/usr/bin/env bash
# cluster.up_down (ctest, label cluster; root): the emulated cluster's life, and nothing left after it.
#
#  1. bad input, nothing made: a rate out of range, too many nodes, a name clash with a namespace
#     that is not the cluster's (kept: it is not ours until `down`);
#  2. up at 2 nodes, 100 Mbit/s (lower where a loaded machine cannot hold it, a refusal leaving
#     nothing): the fidelity check passes; `up` again is harmless; no node has a
#     route out of 198.18.0.0/15 and the host has no interface of the cluster;
#  3. a 4-rank collbench run across the 2 nodes over TCP (`cluster run`), validated bit for bit
#     against the native MPI result (collbench validates every point: exit 3 otherwise); its
#     metadata counts 2 nodes, puts the groups of placement `nodes` on a node each and those of
#     `block` across both, and carries the cluster's measured link (key `cluster`);
#  3b. cluster shape: a node's link at another rate live (both ends, cluster.json), bad input in
#     one line, --reset;
#  4. down while a process runs in a node: no namespace, mount, state or process left;
#  5. SIGTERM during `up` (while making nodes, and during the fidelity ping-pong): exit 143, a
#     line saying nothing is kept, nothing left; SIGKILL during `up`: `status` exits 4 naming the
#     interrupted `up`, `run` refuses, `down` clears it; a link the machine cannot hold
#     (100 Gbit/s) is refused, nothing left.
# Environment (ctest sets them): COLLBENCH (an Open MPI collbench), REPO.
set -euo pipefail
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
COLLBENCH=${COLLBENCH:-$REPO/build/openmpi/bench/collbench}
export COLLREPRO_CLUSTER_DIR=${COLLREPRO_CLUSTER_DIR:-/run/collrepro-cluster}
CL=("$REPO/collrepro-py" cluster)
t0=$SECONDS
step() { echo "[up_down +$((SECONDS - t0))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# alive PID: the process exists and has not exited (a zombie waits only for init to reap it)
alive() { [[ -e /proc/$1/stat && $(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1) != Z ]]; }
[[ $(id -u) == 0 ]] || { echo "SKIP: needs root"; exit 77; }
[[ -x $COLLBENCH ]] || fail "no collbench at $COLLBENCH"
ours() { ip netns list | awk '{print $1}' | grep '^crc-' || true; }
cleanup() { "${CL[@]}" down --any >/dev/null 2>&1 || true; rm -rf "$WORK"; }
nothing_left() {  # $1: what just happened
  [[ -z $(ours) ]] || fail "$1: namespaces left: $(ours | tr '\n' ' ')"
  ! ip -o link show | grep -q ': crc-' || fail "$1: an interface of the cluster in the host's namespace"
  ! grep -q "$COLLREPRO_CLUSTER_DIR" /proc/self/mountinfo || fail "$1: a UTS mount left"
  [[ ! -e $COLLREPRO_CLUSTER_DIR/cluster.json ]] || fail "$1: state left"
}
expect() {  # expect CODE WHAT CMD...: exit code CODE and exactly one line on stderr
  local want=$1 what=$2; shift 2
  local code=0; "$@" >"$WORK/out" 2>"$WORK/err" || code=$?
  [[ $code == "$want" ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "$what: exit $code, want $want"; }
  [[ $want == 0 || $(wc -l <"$WORK/err") == 1 ]] || { cat "$WORK/err" >&2; fail "$what: not one error line"; }
}

if ip netns list | grep -q '^crc-'; then  # someone's cluster (or a leftover): not ours to remove
  echo "SKIP: a cluster is up (ip netns list shows crc- names); run \`collrepro-py cluster down\` first"; exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cluster-test.XXXXXX")
trap cleanup EXIT
step "1. bad input"
expect 2 "rate 0" "${CL[@]}" up --nodes 2 --link 0bit
expect 2 "not a rate" "${CL[@]}" up --nodes 2 --link fast
expect 2 "too many nodes" "${CL[@]}" up --nodes 65 --link 100mbit
expect 2 "unknown node" "${CL[@]}" up --nodes 2 --link 100mbit --node-rate crc-n7=10mbit
nothing_left "bad input"
ip netns add crc-n1
expect 2 "name clash" "${CL[@]}" up --nodes 2 --link 100mbit
grep -q "crc-n1 exists" "$WORK/err" || fail "the clash line does not name crc-n1"
[[ $(ours) == crc-n1 ]] || fail "name clash: made or removed something: $(ours | tr '\n' ' ')"
"${CL[@]}" down >/dev/null
nothing_left "down after a clash"

# The fidelity check is a measurement: beside other CPU-bound work this machine may not hold even
# 100 Mbit/s (0.87 of it at a load average of 21). A refusal must leave nothing; the test then
# asks for a lower rate, and fails only when no rate down to 20 Mbit/s holds.
LINK=""
for rate in 100mbit 50mbit 20mbit; do
  step "2. up at 2 nodes x 2 cores, $rate"
  code=0; "${CL[@]}" up --nodes 2 --cores-per-node 2 --link $rate --collbench "$COLLBENCH" >"$WORK/out" 2>"$WORK/err" || code=$?
  if [[ $code == 0 ]]; then LINK=$rate; break; fi
  cat "$WORK/out" "$WORK/err" >&2
  [[ $code == 5 ]] && grep -q "fidelity check refused" "$WORK/err" || fail "up at $rate: exit $code, want 0 (or a fidelity refusal)"
  nothing_left "a fidelity refusal at $rate"
done
[[ -n $LINK ]] || fail "the fidelity check refused every rate down to 20mbit"
cat "$WORK/out"
grep -q "sizes held within" "$WORK/out" || fail "up does not say which sizes the link holds"
expect 0 "up again" "${CL[@]}" up --nodes 2 --cores-per-node 2 --link $LINK --collbench "$COLLBENCH"
grep -q "already up" "$WORK/out" || fail "up again did not say it was already up"
expect 2 "up with other settings" "${CL[@]}" up --nodes 3 --link $LINK
"${CL[@]}" status
/usr/bin/python3 - "$COLLREPRO_CLUSTER_DIR" <<'PY'
import ipaddress, json, subprocess, sys
state = sys.argv[1]
fid = json.load(open(f"{state}/fidelity.json"))
assert fid["within"] and abs(fid["ratio"] - 1) <= 0.10, fid
assert [s["bytes"] for s in fid["sizes"]] == [4096, 16384, 65536, 1 << 20], fid["sizes"]  # per size, recorded
block = ipaddress.ip_network("198.18.0.0/15")
for ns in ["crc-sw"] + [n["name"] for n in json.load(open(f"{state}/cluster.json"))["nodes"]]:
    for family in ("-4", "-6"):
        routes = json.loads(subprocess.run(["ip", "-n", ns, family, "-j", "route", "show", "table", "all"],
                                           capture_output=True, text=True, check=True).stdout or "[]")
        for r in routes:
            dst = r.get("dst", "")
            assert dst != "default" and not r.get("gateway"), (ns, r)
            if r.get("table") == "local" or r.get("dev") == "lo":
                continue  # the namespace's own addresses, delivered locally
            assert ipaddress.ip_network(dst, strict=False).subnet_of(block), (ns, r)
print(f"fidelity {fid['ratio']:.3f} of the link; no route out of {block} in any namespace")
PY
ip -o link show | grep -q ': crc-' && fail "an interface of the cluster in the host's namespace"

step "3. collbench across 2 nodes over TCP, validated"
expect 0 "cluster run collbench" "${CL[@]}" run -- mpirun.openmpi -n 4 --map-by node "$COLLBENCH" \
  "$REPO/configs/quick.yaml" --out "$WORK/run" --quiet --set 'sizes=[1KiB,64KiB]' --set 'groups.ratios=["1/1"]' \
  --set 'blocks=["1:0"]' --set timing.reps=3 --set 'placements=[block, nodes]'
/usr/bin/python3 - "$WORK/run" "$COLLREPRO_CLUSTER_DIR" <<'PY'
import glob, json, sys
metas = glob.glob(f"{sys.argv[1]}/**/meta-L*.json", recursive=True)
assert len(metas) == 1, metas
m = json.load(open(metas[0]))
assert m.get("complete") is True, m.get("error")
assert m["config"]["validation"] is True
assert m["nodes"] == 2, m["nodes"]
fid = json.load(open(f"{sys.argv[2]}/fidelity.json"))
assert m["cluster"]["fidelity"]["bandwidth_bit_s"] == fid["bandwidth_bit_s"], m.get("cluster")
assert m["cluster"]["fidelity"]["sizes"] == fid["sizes"], "the per-size fidelity is not in the launch's metadata"
assert [n["name"] for n in m["cluster"]["nodes"]] == ["crc-n0", "crc-n1"]
# Where the ranks landed matches the placement: --map-by node puts ranks 0, 2 on crc-n0 and 1, 3
# on crc-n1; `nodes` gives each group a node of its own, `block` (ranks 0-1 | 2-3) spans both.
host = {b["rank"]: b["host"] for b in m["bindings"]}
assert [host[r] for r in range(4)] == ["crc-n0", "crc-n1", "crc-n0", "crc-n1"], host
for pl in m["placements"]:
    sides = [{host[r] for r, s in enumerate(pl["sides"]) if s == side} for side in (0, 1)]
    if pl["placement"] == "nodes":
        assert pl["effective"] == "nodes" and sides[0].isdisjoint(sides[1]), pl
    else:
        assert pl["placement"] == "block" and sides[0] == sides[1] == {"crc-n0", "crc-n1"}, pl
assert {pl["placement"] for pl in m["placements"]} == {"block", "nodes"}
print(f"collbench: 2 nodes, validated, complete, placements block and nodes where they should be, "
      "the cluster's measured link in its metadata")
PY

step "3b. a node's link reshaped live (cluster shape), then back"
expect 2 "shape of a node that is not there" "${CL[@]}" shape --node-rate crc-n9=10mbit
expect 2 "shape with nothing to do" "${CL[@]}" shape
expect 0 "shape crc-n1" "${CL[@]}" shape --node-rate crc-n1=10mbit
tc -n crc-n1 qdisc show dev crc0 | grep -qi "rate 10Mbit" || fail "crc-n1's uplink is not at 10 Mbit/s"
tc -n crc-sw qdisc show dev crc-p1 | grep -qi "rate 10Mbit" || fail "crc-n1's switch port is not at 10 Mbit/s"
tc -n crc-n0 qdisc show dev crc0 | grep -qi "rate $LINK" || fail "crc-n0's uplink changed"
grep -q '"rate_bit_s": 10000000' "$COLLREPRO_CLUSTER_DIR/cluster.json" || fail "cluster.json lacks the new rate"
expect 0 "shape --reset" "${CL[@]}" shape --reset
tc -n crc-n1 qdisc show dev crc0 | grep -qi "rate $LINK" || fail "crc-n1's uplink is not back at $LINK"

step "3c. another clone's cluster: up, shape and down refused with a line naming it; status and run work"
cp "$COLLREPRO_CLUSTER_DIR/cluster.json" "$WORK/cluster.json"
/usr/bin/python3 - "$COLLREPRO_CLUSTER_DIR/cluster.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["owner"]["clone"] = "/elsewhere/collrepro"  # as if another clone had made it
json.dump(doc, open(sys.argv[1], "w"))
PY
expect 2 "up from another clone" "${CL[@]}" up --nodes 2 --cores-per-node 2 --link $LINK --collbench "$COLLBENCH"
grep -q "another clone (/elsewhere/collrepro" "$WORK/err" || fail "up: the refusal does not name the other clone"
expect 2 "shape from another clone" "${CL[@]}" shape --reset
expect 2 "down from another clone" "${CL[@]}" down
grep -q "down --any" "$WORK/err" || fail "down: the refusal does not say how to remove it anyway"
[[ -n $(ours) ]] || fail "a refused down removed the cluster"
expect 0 "status of another clone's cluster" "${CL[@]}" status
grep -q "made by another clone: /elsewhere/collrepro" "$WORK/out" || fail "status does not say whose cluster it is"
expect 0 "run on another clone's cluster" "${CL[@]}" run -- true
cp "$WORK/cluster.json" "$COLLREPRO_CLUSTER_DIR/cluster.json"

step "4. down while a process runs in a node"
"${CL[@]}" run -- sleep 300 &
runner=$!
for _ in $(seq 50); do [[ -n $(ip netns pids crc-n0) ]] && break; sleep 0.1; done
pids=$(ip netns pids crc-n0)
[[ -n $pids ]] || fail "no process in crc-n0"
expect 0 "down" "${CL[@]}" down
wait "$runner" || true
for p in $pids; do ! alive "$p" || fail "process $p outlived down"; done
nothing_left "down"

step "5. SIGTERM during up, and a link the machine cannot hold"
for when in "$COLLREPRO_CLUSTER_DIR/uts/crc-n1" "$COLLREPRO_CLUSTER_DIR/cluster.json"; do
  "${CL[@]}" up --nodes 3 --link 100mbit --collbench "$COLLBENCH" >/dev/null 2>"$WORK/err" &
  up=$!
  for _ in $(seq 300); do [[ -e $when ]] && break; sleep 0.05; done
  [[ -e $when ]] || fail "up never reached $when"
  kill -TERM "$up"
  code=0; wait "$up" || code=$?
  [[ $code == 143 ]] || { cat "$WORK/err" >&2; fail "SIGTERM during up (at $when): exit $code, want 143"; }
  grep -q "nothing is kept to resume" "$WORK/err" || { cat "$WORK/err" >&2; fail "SIGTERM during up: the line does not say nothing is kept"; }
  nothing_left "SIGTERM during up (at $when)"
done
# SIGKILL leaves no chance to clean up: `status` must not call the half-made cluster up.
"${CL[@]}" up --nodes 2 --link 100mbit --collbench "$COLLBENCH" >/dev/null 2>&1 &
up=$!
for _ in $(seq 300); do [[ -e $COLLREPRO_CLUSTER_DIR/cluster.json ]] && break; sleep 0.05; done
[[ -e $COLLREPRO_CLUSTER_DIR/cluster.json ]] || fail "up never wrote cluster.json"
kill -KILL "$up"; wait "$up" || true
expect 4 "status after a killed up" "${CL[@]}" status
grep -q "interrupted" "$WORK/err" || { fail "status after a killed up does not say it was interrupted"; }
expect 2 "run after a killed up" "${CL[@]}" run -- true
expect 0 "down after a killed up" "${CL[@]}" down
nothing_left "down after a killed up"
expect 5 "a 100gbit link" "${CL[@]}" up --nodes 2 --cores-per-node 2 --link 100gbit --collbench "$COLLBENCH"
grep -q "fidelity check refused" "$WORK/err" || { cat "$WORK/err" >&2; fail "100gbit was not refused by the fidelity check"; }
nothing_left "a refused link"
step "PASS"

#!/usr/bin/python3
"""Unit tests of slurm/collslurm (python/collrepro/slurm/) without a Slurm cluster (ctest: slurm.plan).

- the pure parts: slices tile the point list exactly (collbench's rule), the task id mapping
  round-trips, --array lists and throttles, the slurm: schema and its errors;
- plan and submit --dry-run against the real collbench (COLLBENCH, else a build under build/):
  the slices match collbench's own --slice output, overrides and throttle are honoured, errors
  are one clear line;
- collect and status on real results: the generated batch script is run by hand (no Slurm) for
  some tasks, and collect must name exactly the missing (point, launch) pairs.

Run: /usr/bin/python3 tests/slurm/test_plan.py [-v]   (COLLBENCH=path/to/collbench optional)
"""

import csv
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from collrepro import contract  # noqa: E402
from collrepro.mpienv import ci_environment, mpi_environment  # noqa: E402
from collrepro.slurm import plan  # noqa: E402
from collrepro.slurm.task import outcome  # noqa: E402

TOOL = REPO / "slurm" / "collslurm"


def find_collbench():
    env = os.environ.get("COLLBENCH")
    if env:
        return Path(env)
    for name in ("openmpi", "h-slurm", "h-bench"):
        p = REPO / "build" / name / "bench" / "collbench"
        if p.is_file():
            return p
    return None


COLLBENCH = find_collbench()
BUILD = COLLBENCH.parent.parent if COLLBENCH else None
NEEDS_BENCH = unittest.skipUnless(COLLBENCH and COLLBENCH.is_file(),
                                  "no collbench: set COLLBENCH or build the openmpi preset")

# A small experiment: 3 algorithms x 2 block settings x 2 sizes = 12 points at 4 processes.
SMALL = """\
experiment: slurmunit
collective: allgather
algorithms: [native, root-gathering, fullduplex-allgather]
groups: {ratios: ["1/1"]}
blocks: ["1:0", "1:1"]
sizes: [1KiB, 4KiB]
placements: [block]
timing: {sync: barrier, clock: monotonic, warmup: 1, reps: 3}
launches: 2
slurm:
  ntasks_per_node: 2
  slices: 2
  throttle: 3
  time: "00:10:00"
  overcommit: true
  env: {OMPI_MCA_btl_vader_single_copy_mechanism: none}
"""


def run(args, env=None, cwd=None):
    e = dict(os.environ)
    e.setdefault("SLURM_CONF", "/nonexistent/slurm.conf")  # no cluster: squeue fails fast
    e.update(env or {})
    return subprocess.run([str(TOOL)] + [str(a) for a in args], capture_output=True, text=True,
                          env=e, cwd=cwd, timeout=600)


class PureParts(unittest.TestCase):
    def test_slices_tile_the_points_exactly(self):
        for n in range(1, 60):
            for t in range(1, n + 1):
                ranges = [contract.slice_range(n, s, t) for s in range(t)]
                self.assertEqual(ranges[0][0], 0)
                self.assertEqual(ranges[-1][1], n)
                for (b0, e0), (b1, e1) in zip(ranges, ranges[1:]):
                    self.assertEqual(e0, b1, f"n={n} t={t}: slices not contiguous")
                sizes = [e - b for b, e in ranges]
                self.assertTrue(all(x >= 1 for x in sizes), f"n={n} t={t}: empty slice")
                self.assertLessEqual(max(sizes) - min(sizes), 1)
                self.assertEqual(sizes, sorted(sizes, reverse=True), "the larger slices come first")

    def test_mapping_covers_every_point_and_launch_once(self):
        for n, launches, slices in [(12, 2, 2), (7, 3, 3), (5, 1, 5), (108, 3, 4), (1, 4, 1)]:
            m = plan.mapping(n, launches, slices)
            self.assertEqual(len(m), launches * slices)
            pairs = [(p, x["launch"]) for x in m for p in range(x["first"], x["last"] + 1)]
            self.assertEqual(sorted(pairs), sorted((p, l) for p in range(n) for l in range(launches)))
            self.assertEqual(len(pairs), len(set(pairs)))

    def test_several_installations_get_the_calibrated_launches(self):
        """--mpi A,B without --launches: at least design.ROUNDS launches, said in the plan; one
        installation, or --launches, as asked."""
        from collrepro import design
        from collrepro.slurm.experiment import Setup

        def planned(single, launches=None, config=5):
            st = Setup.__new__(Setup)
            st.single, st.np = single, 2
            st.s = {"launches": launches, "slices": 1}
            st.dry_run = lambda: ([{"point": 0}, {"point": 1}], 0)
            st.config_launches = lambda: config
            st._plan("c.yaml")
            return st.launches, st.launches_note
        launches, note = planned(single=False)
        self.assertEqual(launches, design.ROUNDS)
        self.assertIn(f"{design.ROUNDS} launches, the calibrated rounds of a verdict", note)
        self.assertEqual(planned(single=True), (5, ""))
        self.assertEqual(planned(single=False, launches=3), (3, ""))
        self.assertEqual(planned(single=False, config=20), (20, ""))

    def test_task_id_round_trip(self):
        for slices in range(1, 9):
            for launches in range(1, 6):
                seen = set()
                for t in range(launches * slices):
                    launch, slc = plan.launch_slice_of(t, slices)
                    self.assertLess(slc, slices)
                    self.assertLess(launch, launches)
                    self.assertEqual(plan.task_of(launch, slc, slices), t)
                    seen.add((launch, slc))
                self.assertEqual(len(seen), launches * slices)

    def test_array_lists_and_throttle(self):
        self.assertEqual(plan.compress([0, 1, 2, 5, 7, 8]), "0-2,5,7-8")
        self.assertEqual(plan.compress([3]), "3")
        self.assertEqual(plan.array_spec(range(6), 0), "0-5")
        self.assertEqual(plan.array_spec(range(6), 2), "0-5%2")
        self.assertEqual(plan.array_spec([1, 3, 4], 1), "1,3-4%1")
        for ids in ([0], [0, 2, 4], list(range(17)), [1, 2, 3, 9, 10, 40]):
            self.assertEqual(plan.expand(plan.compress(ids)), ids)
        self.assertEqual(plan.ranges_text([0, 1, 2, 5]), "0..2, 5")
        self.assertEqual(plan.task_files(2, 1, 3),
                         {"raw": "raw-L2-S1.csv", "summary": "summary-L2-S1.csv", "meta": "meta-L2-S1.json"})
        self.assertEqual(plan.task_files(2, 0, 1)["summary"], "summary-L2.csv")

    def test_schema_defaults_config_and_command_line(self):
        s = plan.resolve_slurm(None, {})
        self.assertEqual((s["nodes"], s["throttle"], s["launcher"], s["slices"], s["mpi"]), (1, 0, "mpirun", 1, "openmpi"))
        s = plan.resolve_slurm({"throttle": 3, "time": "1-00:00", "sbatch_extra": "--exclusive --constraint='a b'"},
                             {"throttle": "5"})
        self.assertEqual(s["throttle"], 5, "the command line wins over the config")
        self.assertEqual(s["time"], "1-00:00")
        self.assertEqual(s["sbatch_extra"], ["--exclusive", "--constraint=a b"])
        s = plan.resolve_slurm({"sbatch_extra": ["--exclusive"], "env": {"A": 1, "B": True}}, {})
        self.assertEqual(s["sbatch_extra"], ["--exclusive"])
        self.assertEqual(s["env"], {"A": "1", "B": "true"})

    def test_schema_errors_are_clear(self):
        cases = [
            ({"throttel": 2}, {}, "did you mean slurm.throttle?"),
            ({"throttle": -1}, {}, "slurm.throttle"),
            ({}, {"throttle": "x"}, "--throttle"),
            ({}, {"throttle": "-2"}, "0 for no limit"),
            ({"throttle": True}, {}, "whole number"),
            ({"time": "10 minutes"}, {}, "not a Slurm time"),
            ({"launcher": "mpiexec"}, {}, "use one of mpirun, srun"),
            ({"nodes": 0}, {}, "slurm.nodes"),
            ({}, {"ntasks_per_node": "four"}, "--ntasks-per-node"),
            ({"env": ["A=1"]}, {}, "map of VARIABLE"),
            ({"sbatch_extra": "--x='unterminated"}, {}, "quote"),
        ]
        for section, cli, text in cases:
            with self.subTest(section=section, cli=cli):
                with self.assertRaises(plan.Fail) as ctx:
                    plan.resolve_slurm(section, cli)
                self.assertIn(text, str(ctx.exception))
                self.assertNotIn("\n", str(ctx.exception))
        with self.assertRaises(plan.Fail):
            plan.resolve_slurm(["not", "a", "map"], {})

    def test_set_overrides_split(self):
        slurm, bench = plan.split_sets(["slurm.throttle=4", "timing.reps=9", "slurm.sbatch_extra=[--exclusive]",
                                      "sizes=[1KiB, 2KiB]"])
        self.assertEqual(slurm, {"throttle": 4, "sbatch_extra": ["--exclusive"]})
        self.assertEqual(bench, ["timing.reps=9", "sizes=[1KiB, 2KiB]"])
        for bad in (["noequals"], ["slurm=3"], ["slurm.a.b=1"]):
            with self.assertRaises(plan.Fail):
                plan.split_sets(bad)


@NEEDS_BENCH
class TaskOutcome(unittest.TestCase):
    def test_outcome_of_an_attempt(self):
        self.assertEqual(outcome(0, None), "done")
        self.assertEqual(outcome(143, None), "interrupted")
        self.assertEqual(outcome(1, None), "failed")
        self.assertEqual(outcome(1, 15), "interrupted", "mpirun exits 1 after forwarding SIGTERM")


class WithCollbench(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="collslurm-unit-"))
        self.cfg = self.tmp / "small.yaml"
        self.cfg.write_text(SMALL)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def plan(self, *args, config=None):
        r = run(["plan", config or self.cfg, "--build-dir", BUILD, "--format", "json"] + list(args))
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def bench_points(self, config, np, *extra):
        out = subprocess.run([str(COLLBENCH), str(config), "--dry-run", "--format", "csv", "--nprocs", str(np)]
                             + list(extra), capture_output=True, text=True, check=True, env=mpi_environment("openmpi")).stdout
        return [int(r["point"]) for r in csv.DictReader(out.splitlines()) if r["point"] != ""]

    def test_slices_match_collbench_own_slices(self):
        quick = REPO / "configs" / "quick.yaml"
        for np, slices, launches in [(8, 5, 2), (8, 3, 1)]:
            with self.subTest(np=np, slices=slices):
                p = self.plan("--np", np, "--slices", slices, "--launches", launches, config=quick)
                all_points = self.bench_points(quick, np)
                self.assertEqual(p["points"], len(all_points))
                self.assertEqual([x["point"] for x in p["point_list"]], all_points)
                self.assertEqual(p["tasks"], slices * launches)
                self.assertEqual(p["array"], f"0-{slices * launches - 1}")
                for m in p["mapping"]:
                    theirs = self.bench_points(quick, np, "--slice", f"{m['slice']}/{slices}")
                    self.assertEqual(list(range(m["first"], m["last"] + 1)), theirs, m)
                    self.assertEqual(m["task"], m["launch"] * slices + m["slice"])

    def test_config_section_and_overrides(self):
        p = self.plan()
        self.assertEqual((p["np"], p["nodes"], p["ntasks_per_node"]), (2, 1, 2))
        self.assertEqual((p["launches"], p["slices"], p["tasks"], p["array"]), (2, 2, 4, "0-3%3"))
        self.assertEqual(p["points"], 12)
        p = self.plan("--np", 4, "--throttle", 1, "--set", "slurm.slices=3", "--set", "timing.reps=5",
                      "--launches", 3, "--time", "00:20:00", "--partition", "short")
        self.assertEqual((p["np"], p["slices"], p["launches"], p["tasks"], p["array"]), (4, 3, 3, 9, "0-8%1"))
        self.assertEqual((p["time"], p["partition"]), ("00:20:00", "short"))
        self.assertEqual(p["sets"], ["timing.reps=5"], "non-slurm --set goes to collbench")
        p = self.plan("--np", 4, "--nodes", 2, "--throttle", 0)
        self.assertEqual((p["nodes"], p["ntasks_per_node"], p["array"]), (2, 2, "0-3"))
        p = self.plan("--set", "launches=5")
        self.assertEqual(p["launches"], 5, "the config's launches (after --set) when slurm.launches is unset")
        text = run(["plan", self.cfg, "--build-dir", BUILD])
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("task t runs launch t // 2, slice t % 2", text.stdout)
        self.assertIn("sbatch --array=0-3%3", text.stdout)

    def assert_fails(self, args, text, code=2, config=None, env=None, command="plan"):
        r = run([command, config or self.cfg, "--build-dir", BUILD] + [str(a) for a in args], env=env)
        self.assertEqual(r.returncode, code, f"{args}: {r.stdout} {r.stderr}")
        err = r.stderr.strip()
        self.assertTrue(err.startswith("collslurm: "), err)
        self.assertIn(text, err)
        return err

    def test_errors(self):
        self.assert_fails(["--throttle", "-1"], "--throttle")
        self.assert_fails(["--throttle", "two"], "0 for no limit")
        self.assert_fails(["--np", 5, "--nodes", 2], "not a multiple of 2 nodes")
        self.assert_fails(["--slices", 13], "more than the 12 points")
        self.assert_fails(["--time", "soon"], "not a Slurm time")
        self.assert_fails(["--set", "slurm.throtle=2"], "did you mean slurm.throttle?")
        self.assert_fails(["--set", "algorithms=[halfduplex-fc]", "--set", "blocks=['1:1']"],
                          "collbench rejected the config at 2 processes")
        self.assert_fails(["--mpi", "intelmpi"], "use openmpi or mpich")
        self.assert_fails(["--mpi", "mpich"], "openmpi build but --mpi is mpich")
        nonp = self.tmp / "nonp.yaml"
        nonp.write_text(SMALL.replace("  ntasks_per_node: 2\n", ""))
        self.assert_fails([], "pass --np N", config=nonp)
        self.assert_fails([], "no such file", config=self.tmp / "absent.yaml")
        bad = self.tmp / "bad.yaml"
        bad.write_text("experiment: [unclosed\n")
        self.assert_fails([], "not valid YAML", config=bad)
        # Submitting needs sbatch; the check comes first, with the fix. PATH holds only what the
        # wrapper itself runs (bash and coreutils).
        tools = self.tmp / "path-without-sbatch"
        tools.mkdir()
        for tool in ("bash", "dirname", "readlink"):
            (tools / tool).symlink_to(shutil.which(tool))
        self.assert_fails(["--out", self.tmp / "o"], "sbatch not found on PATH", code=5, env={"PATH": str(tools)},
                          command="submit")

    def test_submit_dry_run_writes_the_script(self):
        out = self.tmp / "sub"
        r = run(["submit", self.cfg, "--out", out, "--build-dir", BUILD, "--dry-run", "--throttle", 2,
                 "--partition", "p1", "--account", "acc", "--qos", "q1", "--sbatch-extra", "--exclusive --mem=0",
                 "--launcher", "srun"])
        self.assertEqual(r.returncode, 0, r.stderr)
        res = out / "openmpi"
        self.assertIn("--array=0-3%2 --partition=p1 --account=acc --qos=q1 --exclusive --mem=0", r.stdout)
        script = (res / "collslurm.sbatch").read_text()
        subprocess.run(["bash", "-n", str(res / "collslurm.sbatch")], check=True)
        for line in ("#SBATCH --nodes=1", "#SBATCH --ntasks-per-node=2", "#SBATCH --time=00:10:00",
                     "#SBATCH --overcommit", f"#SBATCH --output={res}/logs/task-%a.job-%A.out",
                     "LAUNCHER=srun", "SRUN_MPI=pmix", "SLICES=2", "TASKS=4", "NP=2",
                     "export OMPI_MCA_btl_vader_single_copy_mechanism=none"):
            self.assertIn(line, script)
        self.assertIsNone(re.search(r"@[A-Z_]+@", script), "a placeholder left in the script")
        # collbench reads the config without its slurm: section, and accepts it.
        exp = res / "experiment.yaml"
        self.assertNotIn("slurm", yaml.safe_load(exp.read_text()))
        self.assertEqual(self.bench_points(exp, 2), list(range(12)))
        rec = json.loads((res / "slurm-plan.json").read_text())
        self.assertEqual(rec["mapping"][3], {"task": 3, "launch": 1, "slice": 1, "first": 6, "last": 11, "count": 6})

    def test_collect_and_status_on_real_results(self):
        """Run the generated batch script by hand (no Slurm) for tasks 0, 1 and 3 of 4."""
        out = self.tmp / "run"
        r = run(["submit", self.cfg, "--out", out, "--build-dir", BUILD, "--dry-run"])
        self.assertEqual(r.returncode, 0, r.stderr)
        res = out / "openmpi"
        shutil.copyfile(res / "slurm-plan.json", res / "slurm-submission.json")  # as if submitted

        def task(t):
            env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
            env.update(ci_environment(), SLURM_ARRAY_TASK_ID=str(t))
            p = subprocess.run(["bash", str(res / "collslurm.sbatch")], capture_output=True, text=True, env=env,
                               timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

        for t in (0, 1, 3):
            task(t)
        c = run(["collect", out, "--format", "json"])
        self.assertEqual(c.returncode, 4, c.stderr)  # incomplete
        rep = json.loads(c.stdout)[0]
        self.assertEqual(rep["missing_by_task"], [{"task": 2, "launch": 1, "points": list(range(6))}])
        self.assertEqual(sorted(map(tuple, rep["missing"])), [(p, 1) for p in range(6)])
        self.assertIn("incomplete: 6 (point, launch) pairs missing in 1 task(s)", c.stderr)
        text = run(["collect", out])
        self.assertIn("missing: launch 1, points 0..5 (task 2)", text.stdout)
        st = run(["status", out, "--format", "json"])
        self.assertEqual(st.returncode, 4)
        counts = json.loads(st.stdout)[0]["counts"]
        self.assertEqual(counts["done"], 3)
        attempt = json.loads(next((res / "tasks").glob("task-3.job-*.json")).read_text())
        self.assertEqual((attempt["state"], attempt["exit_code"], attempt["launch"], attempt["slice"]),
                         ("done", 0, 1, 1))
        # resubmit needs squeue to know what is still queued; --tasks forces a list (complete ones are skipped).
        rs = run(["resubmit", out, "--dry-run"])
        self.assertEqual(rs.returncode, 5, rs.stdout)  # squeue unusable: the environment
        self.assertIn("--tasks", rs.stderr)
        rs = run(["resubmit", out, "--dry-run", "--tasks", "0-3"])
        self.assertEqual(rs.returncode, 0, rs.stderr)
        self.assertIn("would resubmit tasks 2: sbatch --parsable --array=2%3 ", rs.stdout)
        task(2)
        into = self.tmp / "merged"
        c = run(["collect", out, "--into", into])
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertIn("24 present, 0 missing", c.stdout)
        pairs = []
        for f in into.glob("summary-*.csv"):
            with open(f) as fh:
                pairs += [(int(r["point"]), int(r["launch"])) for r in csv.DictReader(fh)]
        self.assertEqual(sorted(pairs), sorted((p, l) for p in range(12) for l in range(2)))
        # Damage is reported: a duplicated row, and a stray file of another run.
        f = res / "summary-L0-S1.csv"
        good = f.read_text()
        lines = good.splitlines(keepends=True)
        f.write_text("".join(lines + lines[-1:]))
        c = run(["collect", out])
        self.assertEqual(c.returncode, 4)
        self.assertIn("appear more than once", c.stdout)
        f.write_text(good)
        (res / "raw-L7.csv").write_text("x\n")
        c = run(["collect", out])
        self.assertEqual(c.returncode, 4)
        self.assertIn("raw-L7.csv is not part of this submission", c.stdout)
        (res / "raw-L7.csv").unlink()
        self.assertEqual(run(["collect", out]).returncode, 0)
        # A second submission into the same directory is refused.
        r = run(["submit", self.cfg, "--out", out, "--build-dir", BUILD, "--dry-run"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("already holds a submission", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2 if "-v" in sys.argv else 1)

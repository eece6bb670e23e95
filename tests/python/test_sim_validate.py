"""The calibrated node platform (sim_platform) and the validation against a real node
(sim_validate): a known latency and bandwidth come back from synthetic ping-pongs, the errors
and rankings of a small table, and the README generator."""

import json
from pathlib import Path

import pandas as pd
import pytest

from collrepro.sim.validation import report as R
from collrepro.sim.validation import study_copybw
from collrepro.sim.validation import validate as V
from collrepro.sim.platforms import platform as SP
from collrepro.sim.running import make_platform
from collrepro.sim.running import run as sim
from collrepro.safeio import UserError

ALPHA, BW = 1.5e-6, 5e9  # a known node: 1.5 us, 5 GB/s
SIZES = [1, 1024, 65536, 1 << 20]


def _series(alpha=ALPHA, bw=BW, sizes=SIZES):
    return [{"bytes": b, "time_s": alpha + b / bw, "launches": 1} for b in sizes]


def _meta_dir(tmp_path, name, series, mpi="openmpi", cores=16):
    d = tmp_path / name
    d.mkdir(parents=True)
    meta = {"mpi_impl": mpi, "mpi_version": "9.9", "hwloc": {"cores": cores},
            "pingpong": [{"bytes": s["bytes"], "time_s": s["time_s"]} for s in series]}
    (d / "meta-L0.json").write_text(json.dumps(meta))
    return d


def test_alpha_beta_comes_back():
    lat, bw = SP.alpha_beta(_series())
    assert lat == pytest.approx(ALPHA, rel=1e-6) and bw == pytest.approx(BW, rel=1e-6)


def test_piecewise_returns_every_measured_size():
    # two regimes: eager up to 64 KiB, a higher latency and bandwidth beyond
    series = _series(sizes=[1, 1024, 65536]) + [{"bytes": 1 << 20, "time_s": 5e-6 + (1 << 20) / 8e9, "launches": 1}]
    pieces = SP.piecewise(series)
    for s in series:
        assert SP.model_time(pieces, s["bytes"]) == pytest.approx(s["time_s"], rel=1e-9)
    assert pieces[0][1] == pytest.approx(ALPHA, rel=1e-6) and pieces[0][2] == pytest.approx(BW, rel=1e-6)


def test_measurements_take_the_median_per_size_and_the_library(tmp_path):
    _meta_dir(tmp_path, "a/openmpi", _series(alpha=1e-6))
    _meta_dir(tmp_path, "b/openmpi", _series(alpha=2e-6))
    _meta_dir(tmp_path, "c/openmpi", _series(alpha=9e-6))
    _meta_dir(tmp_path, "a/mpich", _series(alpha=50e-6), mpi="mpich")
    m = SP.measurements([tmp_path], mpi="openmpi")
    assert m["launches"] == 3 and m["cores"] == 16
    assert m["pingpong"][0]["time_s"] == pytest.approx(2e-6 + 1 / BW)


def test_platform_file_carries_the_calibration(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    out = tmp_path / "node.xml"
    assert make_platform.main([str(d), "--model", "alpha-beta", "--copy-bw", "40", "--name", "n", "-o", str(out)]) == 0
    text = out.read_text()
    assert 'lat="7.5e-07s"' in text and 'bw="5e+09Bps"' in text  # half the latency per link, two links a route
    assert 'bb_bw="2e+10Bps"' in text  # 40 GB/s copied, two copies per message
    hosts, _, _, _, _ = sim.cluster_of(str(out))  # simrun accepts it: 16 hosts node-0..15
    assert hosts == 16
    assert "network/model:CM02" in sim.platform_config(str(out))
    # a copy bandwidth below what one ping-pong moved is raised to one link's: the ping-pong stays
    make_platform.main([str(d), "--model", "alpha-beta", "--copy-bw", "4", "-o", str(out)])
    assert 'bb_bw="5e+09Bps"' in out.read_text() and "raised to one link" in out.read_text()


def test_piecewise_platform_config_replaces_simruns_defaults(tmp_path):
    d = _meta_dir(tmp_path, "x/mpich", _series(), mpi="mpich", cores=4)
    out = tmp_path / "node.xml"
    make_platform.main([str(d), "--duplex", "split", "-o", str(out)])
    cfg = sim.sim_config("ompi", sim.platform_config(str(out)))
    keys = [c.split(":")[0] for c in cfg]
    assert "network/model:SMPI" in cfg and "network/model:CM02" not in cfg and keys.count("network/model") == 1
    assert "smpi/coll-selector:ompi" in cfg and not any(c.startswith("smpi/bcast") for c in cfg)
    assert 'sharing_policy="SPLITDUPLEX"' in out.read_text() and 'radical="0-3"' in out.read_text()


def _with_callcosts(d, costs):
    """Adds collbench's callcosts [{bytes, send_s, isend_s, recv_s}] to the directory's metadata."""
    meta = json.loads((d / "meta-L0.json").read_text())
    meta["callcosts"] = costs
    (d / "meta-L0.json").write_text(json.dumps(meta))


# One-way times 1 B: 1.5 us, 1 KiB: ~1.7 us, 64 KiB: ~14.6 us, 1 MiB: ~211 us; the calls cost 0.2 +
# 0.3 us at 1 B and 0.3 + 0.4 us at 1 KiB (eager: at most half the one-way time), and at 64 KiB the
# send waits for the transfer.
CALLCOSTS = [{"bytes": 1, "send_s": 0.2e-6, "isend_s": 0.1e-6, "recv_s": 0.3e-6},
             {"bytes": 1024, "send_s": 0.3e-6, "isend_s": 0.1e-6, "recv_s": 0.4e-6},
             {"bytes": 65536, "send_s": 13e-6, "isend_s": 0.1e-6, "recv_s": 13e-6},
             {"bytes": 1 << 20, "send_s": 200e-6, "isend_s": 0.1e-6, "recv_s": 200e-6}]


def test_overheads_are_fitted_from_the_callcosts_and_keep_the_pingpong(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    _with_callcosts(d, CALLCOSTS)
    meas = SP.measurements([str(d)])
    assert [c["bytes"] for c in SP.overheads(meas)] == [1, 1024]  # 64 KiB: the send waited
    out = tmp_path / "node.xml"
    assert make_platform.main([str(d), "-o", str(out)]) == 0
    cfg = dict(c.split(":", 1) for c in sim.platform_config(str(out)))
    # per section threshold:offset:factor; the line through 1 B and 1 KiB, then 0 from 64 KiB
    slope = 0.1e-6 / 1023
    assert cfg["smpi/os"] == f"0:{SP._g(0.2e-6 - slope)}:{SP._g(slope)};1023:{SP._g(0.3e-6)}:0;65535:0:0"
    assert cfg["smpi/ois"] == f"0:{SP._g(0.1e-6)}:0;1023:{SP._g(0.1e-6)}:0;65535:0:0"
    assert cfg["smpi/or"].endswith(f";1023:{SP._g(0.4e-6)}:0;65535:0:0")
    assert cfg["smpi/async-small-thresh"] == "65536"
    # the links carry the one-way time less os and or, so the ping-pong comes back whole
    text = out.read_text()
    for s in _series():
        assert f"{s['bytes']} B: measured {s['time_s'] * 1e6:.3f} us, platform {s['time_s'] * 1e6:.3f} us" in text
    # the same data give the same platform
    again = tmp_path / "again.xml"
    make_platform.main([str(d), "-o", str(again)])
    assert again.read_text() == text


def test_an_assumed_overhead_keeps_the_pingpong_and_only_eager_sizes(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    out = tmp_path / "node.xml"
    assert make_platform.main([str(d), "--overhead", "0.2", "-o", str(out)]) == 0
    cfg = dict(c.split(":", 1) for c in sim.platform_config(str(out)))
    # 1 B and 1 KiB (below SMPI's 64 KiB detached-send bound), 0.2 us each, 0 from 64 KiB
    assert cfg["smpi/os"] == cfg["smpi/ois"] == cfg["smpi/or"] == "0:2e-07:0;1023:2e-07:0;65535:0:0"
    assert cfg["smpi/async-small-thresh"] == "65536" and "smpi/send-is-detached-thresh" not in cfg
    text = out.read_text()
    assert "per-message overhead assumed, 0.2 us per call (not measured)" in text
    for s in _series():
        assert f"{s['bytes']} B: measured {s['time_s'] * 1e6:.3f} us, platform {s['time_s'] * 1e6:.3f} us" in text
    _with_callcosts(d, CALLCOSTS)  # measured costs are never replaced by an assumption
    with pytest.raises(UserError, match="hold callcosts"):
        make_platform.main([str(d), "--overhead", "0.2", "-o", str(out)])
    with pytest.raises(UserError, match="--overhead -1"):
        make_platform.main([str(d), "--overhead", "-1", "-o", str(out)])


def test_an_eager_bound_above_64_kib_raises_the_detached_bound(tmp_path):
    """SMPI aborts when smpi/async-small-thresh exceeds smpi/send-is-detached-thresh."""
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    cheap = [dict(c, send_s=0.2e-6, recv_s=0.3e-6) for c in CALLCOSTS]  # every size eager
    _with_callcosts(d, cheap)
    out = tmp_path / "node.xml"
    make_platform.main([str(d), "-o", str(out)])
    cfg = dict(c.split(":", 1) for c in sim.platform_config(str(out)))
    assert cfg["smpi/async-small-thresh"] == cfg["smpi/send-is-detached-thresh"] == str((1 << 20) + 1)


def test_overhead_sections_give_every_measured_size_its_value():
    """SMPI applies a section to sizes above its threshold: each measured size gets its own cost
    back, also where a line between two sizes would need a negative offset."""
    costs = [{"bytes": 100, "send_s": 0.1e-6}, {"bytes": 1000, "send_s": 10e-6}, {"bytes": 4000, "send_s": 4e-6}]
    text = SP.smpi_cost_config(costs, "send_s", 8192)
    sections = [tuple(float(x) for x in part.split(":")) for part in text.split(";")]

    def value(size):
        v = 0.0
        for threshold, offset, factor in sections:
            if size > threshold:
                v = offset + factor * size
        return v
    for c in costs:
        assert value(c["bytes"]) == pytest.approx(c["send_s"], rel=1e-5)
    assert value(8192) == 0.0 and value(8191) == pytest.approx(4e-6, rel=1e-5)
    assert all(offset >= 0 for _, offset, _ in sections)


def test_no_overheads_without_callcosts_or_when_the_send_waits(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    out = tmp_path / "node.xml"
    make_platform.main([str(d), "-o", str(out)])
    assert "smpi/os" not in out.read_text() and "per-message overheads: none" in out.read_text()
    _with_callcosts(d, [dict(c, send_s=c["send_s"] + 1e-6) for c in CALLCOSTS])  # 1 B: 1.5 of 1.5 us
    assert SP.overheads(SP.measurements([str(d)])) == []


def test_a_damaged_callcosts_entry_is_one_line(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    _with_callcosts(d, [{"bytes": 1, "send_s": 1e-7}])
    with pytest.raises(UserError, match="callcosts entry .*want bytes, send_s, isend_s, recv_s"):
        SP.measurements([str(d)])


def test_no_pingpong_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no launch metadata with a ping-pong"):
        make_platform.main([str(tmp_path / "empty"), "-o", str(tmp_path / "x.xml")])


def _frames(real_rows, sim_rows):
    cols = ["collective", "shape", "msg_bytes", "neighbors", "algorithm", "median_s", "launches", "min_s", "max_s"]
    real = pd.DataFrame([("allgather", "8:8", 1024, 0, a, m, 3, lo, hi) for a, m, lo, hi in real_rows], columns=cols)
    sim_ = pd.DataFrame([("allgather", "8:8", 1024, 0, a, m, 1, m, m) for a, m in sim_rows], columns=cols)
    return real, sim_


def test_error_and_ranking():
    real, sim_ = _frames([("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.9, 2.1), ("c", 2.05, 1.95, 2.2)],
                         [("a", 1.1), ("b", 3.0), ("c", 2.5)])
    pts = V.compare(real, sim_, "e", "openmpi")
    assert list(pts["error_pct"].round(6)) == [10.0, 50.0, pytest.approx(21.95122, rel=1e-5)]
    # a < b and a < c are told apart and kept; b and c overlap (a tie the node cannot order)
    assert pts["ranking_preserved"].tolist() == [True] * 3
    real, sim_ = _frames([("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.9, 2.1)], [("a", 2.0), ("b", 2.0)])
    assert V.compare(real, sim_, "e", "openmpi")["ranking_preserved"].tolist() == [False] * 2  # a simulated tie
    # simulated times a few parts per million apart are a tie too, whichever way the digits fall
    for b_sim in (1.000002, 0.999998):
        real, sim_ = _frames([("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.9, 2.1)], [("a", 1.0), ("b", b_sim)])
        assert V.compare(real, sim_, "e", "openmpi")["ranking_preserved"].tolist() == [False] * 2
    real, sim_ = _frames([("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.9, 2.1)], [("a", 1.0), ("b", 1.001)])
    assert V.compare(real, sim_, "e", "openmpi")["ranking_preserved"].tolist() == [True] * 2
    real, sim_ = _frames([("a", 1.0, 0.9, 2.0), ("b", 1.5, 1.2, 2.1)], [("a", 2.0), ("b", 1.0)])
    assert V.compare(real, sim_, "e", "openmpi")["ranking_preserved"].isna().all()  # nothing to rank


def test_microsecond_ties_are_absolute():
    """A median of a few microseconds moves by a few of SimGrid's 1e-9 s date steps between reruns
    with another history (2.6e-4 of 4 us): that is a tie, not an order; 20 ns apart is not."""
    from collrepro.sim.validation import ties
    us = 1e-6
    assert ties.tied(4 * us, 4 * us + 1.04e-9) and not ties.faster(4 * us, 4 * us + 1.04e-9)
    assert ties.faster(4 * us, 4 * us + 20e-9) and not ties.tied(4 * us, 4 * us + 20e-9)
    assert ties.tied(1.0, 1.00005) and ties.faster(1.0, 1.001)  # long times: the relative floor
    real, sim_ = _frames([("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.9, 2.1)], [("a", 4 * us), ("b", 4 * us + 1.04e-9)])
    assert V.compare(real, sim_, "e", "openmpi")["ranking_preserved"].tolist() == [False] * 2


def test_misordered_pairs_are_alike_or_reversed():
    # the node orders a < b < c (launch ranges apart); the simulation has b 0.5 % before a (alike)
    # and c 10 % before both (reversed)
    real, sim_ = _frames([("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.9, 2.1), ("c", 3.0, 2.9, 3.1)],
                         [("a", 1.0), ("b", 0.995), ("c", 0.9)])
    pts = V.compare(real, sim_, "e", "openmpi")
    pairs = V.misordered_pairs(pts).sort_values(["faster", "slower"]).reset_index(drop=True)
    assert list(zip(pairs["faster"], pairs["slower"], pairs["alike"])) == [("a", "b", True), ("a", "c", False),
                                                                          ("b", "c", False)]
    assert pairs["real_ratio"].tolist() == pytest.approx([2.0, 3.0, 1.5])
    assert pairs["sim_ratio"].tolist() == pytest.approx([0.995, 0.9, 0.9 / 0.995])
    text = R.readme(pts, V.summarize(pts), {}, [])
    assert "## Why each row that misses misses" in text
    # errors 0, -50.25 and -70 %: all three 1 KiB points in the smallest band
    assert "| e | openmpi | neither | -50.2 (3) | - | - | 3 | 1 | 2 |" in text


def _points():
    rows = []
    for i, (err, kept) in enumerate([(10, True), (-20, True), (30, False), (5, True)]):
        rows.append({"experiment": "x", "library": "openmpi", "collective": "allgather", "shape": f"s{i}",
                     "msg_bytes": 1024 << i, "algorithm": "a", "real_median_s": 1e-3,
                     "sim_median_s": 1e-3 * (1 + err / 100), "error_pct": float(err), "ranking_preserved": kept})
    return pd.DataFrame(rows)


def test_summary_median_p90_and_ranking_share():
    s = V.summarize(_points()).iloc[0]
    assert s["median_abs_error_pct"] == 15.0 and s["p90_abs_error_pct"] == 27.0
    assert s["shapes_ranked"] == 4 and s["ranking_preserved_pct"] == 75.0


def test_readme_reports_the_summary_and_the_goal(tmp_path):
    pts = _points()
    text = R.readme(pts, V.summarize(pts), {"x/openmpi": {"wall_s": 12.5}}, ["y/mpich"])
    # 15.0 % meets the goal (<= 15 %), 75 % of shapes ranked does not (>= 90 %)
    assert "| x | openmpi | 4 | 15.0 | 27.0 | 4 | 75.0 | error met | 12.5 |" in text
    assert "Not simulated (no `sims/` result): y/mpich." in text and "sim_vs_real.png" in text
    assert "../" not in text
    V.figure(pts, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_readme_compares_a_shared_memory_limit():
    pts = _points()
    limited = pts.assign(error_pct=[40.0, 20.0, 10.0, -5.0])  # the largest size fits, the smallest overshoots
    text = R.readme(pts, V.summarize(pts), {}, [], studies=[(study_copybw.STUDY, {32.0: limited})])
    assert "| x | openmpi | 1 KiB | 10.0 | 40.0 |" in text
    assert "x / openmpi at 32 GB/s: -5.0 % at 8 KiB, +40.0 % at 1 KiB" in text


def test_readme_names_the_phase_that_is_off():
    """Per algorithm and phase: the signed median error over the points, its range."""
    phases = pd.DataFrame({"experiment": "x", "library": "openmpi", "shape": "7:7", "algorithm": "root-gathering",
                           "msg_bytes": [1024, 2048, 4096, 1024, 2048, 4096],
                           "phase_index": [2, 2, 2, 0, 0, 0], "phase": ["bcast"] * 3 + ["gather"] * 3,
                           "error_pct": [90.0, 110.0, -58.0, -5.0, 1.0, 3.0]})
    text = R.readme(_points(), V.summarize(_points()), {}, [], phases=phases)
    assert "| x | openmpi | root-gathering | gather | 3 | 1.0 | -5.0 | 3.0 |" in text
    assert "| x | openmpi | root-gathering | bcast | 3 | 90.0 | -58.0 | 110.0 |" in text
    assert text.index("| gather |") < text.index("| bcast |")  # in the algorithm's order
    assert "## Phases" not in R.readme(_points(), V.summarize(_points()), {}, [])


def test_committed_summary_is_the_points_summary():
    """results/sim/validation: summary.csv and the README's summary rows follow from points.csv
    (regenerate with `collrepro-py sim validate report REAL_DIR`)."""
    out = V.OUT
    points = pd.read_csv(out / "points.csv")
    points["ranking_preserved"] = points["ranking_preserved"].map({True: True, False: False, "True": True,
                                                                   "False": False})
    want = V.summarize(points)
    have = pd.read_csv(out / "summary.csv")
    pd.testing.assert_frame_equal(want.reset_index(drop=True), have, check_dtype=False)
    readme = (out / "README.md").read_text()
    for _, r in want.iterrows():
        assert f"| {r['experiment']} | {r['library']} | {r['points']} | {r['median_abs_error_pct']} | " in readme


def _archive(tmp_path, members):
    """runs.tar.xz of `members`: {name: text} files, or {name: None} for a link to /etc."""
    import io
    import tarfile
    path = tmp_path / "runs.tar.xz"
    with tarfile.open(path, "w:xz") as tar:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            if text is None:
                info.type, info.linkname = tarfile.SYMTYPE, "/etc"
                tar.addfile(info)
            else:
                data = text.encode()
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_real_runs_unpack_the_committed_archive_and_go(tmp_path):
    _archive(tmp_path, {"quick-np8/openmpi/meta-L0.json": "{}"})
    with V.real_runs(tmp_path) as real:  # a directory holding runs.tar.xz
        assert (real / "quick-np8" / "openmpi" / "meta-L0.json").read_text() == "{}"
        unpacked = real
    assert not unpacked.exists()
    with V.real_runs(tmp_path / "runs.tar.xz") as real:  # the archive itself
        assert (real / "quick-np8").is_dir()
    plain = tmp_path / "plain"
    plain.mkdir()
    with V.real_runs(plain) as real:  # a directory of runs is read in place
        assert real == plain


@pytest.mark.parametrize("members", [{"../escape.json": "{}"}, {"/abs.json": "{}"}, {"quick-np8/link": None}])
def test_real_runs_refuse_an_archive_member_outside_it(tmp_path, members):
    _archive(tmp_path, members)
    with pytest.raises(UserError, match="not a plain file or directory inside the archive"):
        with V.real_runs(tmp_path):
            pass
    import tempfile
    assert not (Path(tempfile.gettempdir()) / "escape.json").exists()  # beside the temporary directory


def test_every_validated_experiment_is_in_the_committed_node16_archive():
    import tarfile
    assert V.DEFAULT_REAL == V.REPO / "results" / "node16"
    with tarfile.open(V.DEFAULT_REAL / V.ARCHIVE, "r:xz") as tar:
        held = {tuple(n.split("/")[-3:-1]) for n in tar.getnames() if "/meta-L0.json" in n}
    for experiment in V.EXPERIMENTS:
        assert (experiment, "openmpi") in held and (experiment, "mpich") in held, experiment


def _with_typecosts(d, extras):
    """Adds collbench's typecosts to the directory's metadata: {bytes: struct_s - contiguous_s}."""
    meta = json.loads((d / "meta-L0.json").read_text())
    meta["typecosts"] = [{"blocks": 4, "bytes": b, "contiguous_s": 1e-6, "struct_s": 1e-6 + e} for b, e in extras.items()]
    (d / "meta-L0.json").write_text(json.dumps(meta))


def test_type_cost_is_half_the_line_through_the_positive_extras(tmp_path):
    d = _meta_dir(tmp_path, "x/mpich", _series(), mpi="mpich")
    # 0.7 us + 1.4 ns per byte one way, then a size whose contiguous message takes another protocol
    _with_typecosts(d, {4: 0.7e-6 + 4 * 1.4e-9, 1024: 0.7e-6 + 1024 * 1.4e-9, 16384: -3e-6})
    a, b, upto = SP.type_cost(SP.measurements([str(d)], "mpich"))
    assert a == pytest.approx(0.35e-6) and b == pytest.approx(0.7e-9) and upto == 1024


def test_type_cost_never_charges_less_for_more_bytes_and_needs_a_positive_extra(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    _with_typecosts(d, {4: 0.2e-6, 1024: 0.1e-6, 16384: -3e-6})  # falling: no per-byte term, the median
    a, b, upto = SP.type_cost(SP.measurements([str(d)], "openmpi"))
    assert b == 0 and a == pytest.approx(0.15e-6 / 2) and upto == 1024
    _with_typecosts(d, {4: -1e-9, 1024: 0.5e-6})
    assert SP.type_cost(SP.measurements([str(d)], "openmpi")) is None


def test_simrun_refuses_a_malformed_type_cost():
    from collrepro.sim.running import run as sim
    assert sim.parse_type_cost("3e-7,7e-10,1024") == (3e-7, 7e-10, 1024.0)
    assert sim.parse_type_cost(None) is None
    for bad in ("3e-7,7e-10", "a,b,c", "-1e-7,0,1", "1,0,1", "3e-7,1e-3,1", "nan,0,1"):
        with pytest.raises(UserError, match="--type-cost"):
            sim.parse_type_cost(bad)


def _with_concurrent(d, slow, pairs=8, alpha=ALPHA, bw=BW):
    """Adds collbench's concurrent_pingpong to the directory's metadata: every pair `slow[bytes]`
    times slower than one pair in its transfer (latency alpha left out)."""
    meta = json.loads((d / "meta-L0.json").read_text())
    meta["concurrent_pingpong"] = [{"bytes": b, "pairs": pairs, "one_pair_s": alpha + b / bw,
                                    "all_pairs_s": alpha + k * b / bw} for b, k in slow.items()]
    (d / "meta-L0.json").write_text(json.dumps(meta))


SLOW = {1 << 16: 1.0, 1 << 18: 1.02, 1 << 20: 2.0, 1 << 22: 4.0}


def test_the_shared_backbone_slows_the_measured_pairs_as_the_node_did(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    _with_concurrent(d, SLOW)
    m = SP.measurements([str(d)], "openmpi")
    pieces = SP.piecewise(m["pingpong"])
    bw = max(p[2] for p in pieces)
    at = {b: SP.shared_backbone(m, pieces, bw, 16, b) for b in (8192, 1 << 16, 1 << 18, 1 << 20, 1 << 21, 1 << 24)}
    assert at[1 << 20][0] == pytest.approx(8 * bw / 2.0) and at[1 << 20][1:] == (pytest.approx(2.0), 8)
    assert at[1 << 21][0] == pytest.approx(8 * bw / 3.0)     # halfway in log2 between 1 and 4 MiB
    assert at[1 << 24][0] == pytest.approx(8 * bw / 4.0)     # beyond the largest size: its slow-down
    # no slower than one pair: no limit at all, not one at 8 flows
    for b in (8192, 1 << 16):
        assert at[b][0] == pytest.approx(16 * bw)
    # within the noise margin: between no limit and 8 links / the margin, continuously
    w = 0.02 / (SP.SHARED_NOISE - 1)
    assert at[1 << 18][0] == pytest.approx((1 - w) * 16 * bw + w * 8 * bw / SP.SHARED_NOISE)
    m_at = dict(m, concurrent=[dict(c, all_pairs_s=ALPHA + SP.SHARED_NOISE * c["bytes"] / BW) for c in m["concurrent"]])
    below = dict(m, concurrent=[dict(c, all_pairs_s=ALPHA + (SP.SHARED_NOISE - 1e-9) * c["bytes"] / BW)
                                for c in m["concurrent"]])
    assert SP.shared_backbone(below, pieces, bw, 16, 1 << 20)[0] == pytest.approx(
        SP.shared_backbone(m_at, pieces, bw, 16, 1 << 20)[0], rel=1e-6)
    assert SP.shared_backbone(SP.measurements([str(_meta_dir(tmp_path, "y/openmpi", _series()))]), pieces, bw, 16,
                              1 << 20) is None


def test_per_message_overheads_are_left_out_of_the_slow_down(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    _with_concurrent(d, {1 << 16: 2.0})
    m = SP.measurements([str(d)], "openmpi")
    pieces = SP.piecewise(m["pingpong"])
    assert SP.slowdowns(m, pieces) == [(1 << 16, pytest.approx(2.0))]
    paid = 0.5 * (1 << 16) / BW      # half the one pair's transfer was os + or
    assert SP.slowdowns(m, pieces, {1 << 16: paid}) == [(1 << 16, pytest.approx(3.0))]


def test_a_concurrent_pingpong_without_a_transfer_is_one_line(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    meta = json.loads((d / "meta-L0.json").read_text())
    meta["concurrent_pingpong"] = [{"bytes": 1 << 16, "pairs": 8, "one_pair_s": 1e-9, "all_pairs_s": 2e-9}]
    (d / "meta-L0.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="exceeds the platform's latency"):
        make_platform.main([str(d), "--shared-size", "65536", "-o", str(tmp_path / "n.xml")])


def test_the_backbone_never_drops_below_one_link_and_uses_the_most_pairs(tmp_path):
    d = _meta_dir(tmp_path, "few/openmpi", _series())
    _with_concurrent(d, {1 << 20: 1.0}, pairs=2)      # 2 pairs did not reach the limit
    e = _meta_dir(tmp_path, "many/openmpi", _series())
    _with_concurrent(e, {1 << 20: 20.0}, pairs=8)     # 8 pairs 20 times slower than one
    m = SP.measurements([str(tmp_path)], "openmpi")
    assert [(c["pairs"], c["launches"]) for c in m["concurrent"]] == [(8, 1)]
    pieces = SP.piecewise(m["pingpong"])
    bw = max(p[2] for p in pieces)
    assert SP.shared_backbone(m, pieces, bw, 16, 1 << 20)[0] == pytest.approx(bw)


def test_a_platform_for_one_size_carries_its_backbone(tmp_path):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    _with_concurrent(d, SLOW)
    out = tmp_path / "node.xml"
    assert make_platform.main([str(d), "--shared-size", str(1 << 20), "-o", str(out)]) == 0
    text = out.read_text()
    bw = max(p[2] for p in SP.piecewise(_series()))
    assert f'bb_bw="{SP._g(8 * bw / 2.0)}Bps"' in text and "for messages of 1048576 B: 8 pairs" in text


@pytest.mark.parametrize("extra, needs", [([], "no concurrent_pingpong"), (["--copy-bw", "40"], "no --copy-bw"),
                                         (["--shared-size", "0"], r"1 to 2\^40")])
def test_shared_size_refusals_are_one_line(tmp_path, extra, needs):
    d = _meta_dir(tmp_path, "x/openmpi", _series())
    args = [str(d), "-o", str(tmp_path / "n.xml")] + (extra if "--shared-size" in extra else
                                                       ["--shared-size", str(1 << 20)] + extra)
    with pytest.raises(UserError, match=needs):
        make_platform.main(args)
    assert not (tmp_path / "n.xml").exists()


def test_every_study_is_found_and_offered_by_the_command():
    """Each study_*.py of sim/validation registers itself: discover() finds it, `sim validate run`
    offers its option, and the values given reach it as a list (a flag's True, each repeated value)."""
    from collrepro.sim.validation import study, validate_command
    found = study.discover()
    names = [s.name for s in found]
    assert {"alternative", "copybw", "overhead", "typecost", "shared"} <= set(names)
    assert len(set(names)) == len(names) and [s.order for s in found] == sorted(s.order for s in found)
    a = validate_command._parser(found).parse_args(["run", "--copy-bw", "32", "--copy-bw", "64", "--alternative"])
    by = {s.name: s for s in found}
    assert by["copybw"].values(a) == [32.0, 64.0] and by["alternative"].values(a) == [True]
    assert by["overhead"].values(a) == [] and by["typecost"].values(a) == [] and by["shared"].values(a) == []
    assert [s.name for s in found if s.in_all] == ["alternative"]
    for s in found:
        assert s.command.startswith("collrepro-py sim validate run ") and s.flag in s.command

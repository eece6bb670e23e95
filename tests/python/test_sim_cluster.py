"""The emulated cluster in simulation: the platform written from the launches' `cluster` records
(python/collrepro/sim/platforms/cluster_platform.py), simrun's reading of it, and the comparison's summary
(python/collrepro/sim/validation/cluster_validate.py). No SimGrid needed (tests/sim/cluster_platform.sh
simulates on such a platform)."""

import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from collrepro.safeio import UserError
from collrepro.sim.platforms import cluster_platform as CP
from collrepro.sim.validation import cluster_validate as CV
from collrepro.sim.running import run as sim


def _record(rates=(100e6,) * 4, ratio=0.98, latency=8e-6):
    return {"nodes": [{"name": f"crc-n{i}", "rate_bit_s": r} for i, r in enumerate(rates)], "cores_per_node": 1,
            "fidelity": {"ratio": ratio, "latency_s": latency, "bandwidth_bit_s": rates[0] * ratio}}


def _parse(text):
    return ET.fromstring(text.split("\n", 2)[2])  # past the XML declaration and DOCTYPE


def test_the_record_is_the_launches_median():
    rec = CP.cluster_record([{"cluster": _record(ratio=0.97)}, {"cluster": _record(ratio=0.99)},
                             {"cluster": _record(ratio=0.98)}, {"simulated": True, "cluster": _record(ratio=0.5)}], "d")
    assert rec["ratio"] == pytest.approx(0.98) and rec["launches"] == 3 and len(rec["nodes"]) == 4


@pytest.mark.parametrize("metas, words", [
    ([{"mpi_impl": "openmpi"}], "no launch ran on an emulated cluster"),
    ([{"cluster": _record()}, {"cluster": _record(rates=(100e6, 100e6, 100e6, 50e6))}], "disagree on the nodes"),
    ([{"cluster": {"nodes": [{"name": "crc-n0"}], "fidelity": {}}}], "lacks"),
    ([{"cluster": dict(_record(), nodes=[{"name": "x", "rate_bit_s": 1e8}, {"name": "y", "rate_bit_s": 1e8}])}],
     "want crc-n0"),
    ([{"cluster": _record(rates=(100e6, 0))}], r"crc-n1's rate_bit_s is 0; want a number above 0"),
    ([{"cluster": _record(rates=(100e6, -5e6))}], "crc-n1's rate_bit_s is -5000000.0; want a number above 0"),
    ([{"cluster": _record(rates=(100e6, float("nan")))}], "want a number above 0"),
    ([{"cluster": _record(rates=(100e6, "abc"))}], r"crc-n1's rate_bit_s is 'abc', not a number"),
    ([{"cluster": dict(_record(), nodes=[])}], "lists no nodes"),
    ([{"cluster": dict(_record(), nodes=None)}], "not shaped as collbench writes it"),
    ([{"cluster": dict(_record(), fidelity={"ratio": "high", "latency_s": 8e-6})}],
     "the fidelity ratio is 'high', not a number"),
    ([{"cluster": _record(latency=0)}], "the fidelity latency_s is 0; want a number above 0"),
    ([{"cluster": dict(_record(), cores_per_node="2")}], "cores_per_node is '2'; want a whole number"),
])
def test_records_that_are_not_one_cluster_are_refused(metas, words):
    with pytest.raises(UserError, match=words):
        CP.cluster_record(metas, "d")


def test_the_rate_platform_has_the_cluster_links_and_routes():
    rec = CP.cluster_record([{"cluster": _record(rates=(100e6, 100e6, 100e6, 50e6))}], "d")
    root = _parse(CP.platform_xml(rec))
    zone = root.find("zone")
    assert zone.get("routing") == "Full"
    assert [h.get("id") for h in zone.findall("host")] == [f"node-{i}" for i in range(4)]
    links = {ln.get("id"): ln for ln in zone.findall("link")}
    assert len(links) == 12
    assert float(links["crc-n0-up"].get("bandwidth")[:-3]) == pytest.approx(100e6 * 0.98 / 8, rel=1e-5)
    assert float(links["crc-n3-down"].get("bandwidth")[:-3]) == pytest.approx(50e6 * 0.98 / 8, rel=1e-5)
    assert float(links["crc-n2-up"].get("latency")[:-1]) == pytest.approx(4e-6, rel=1e-5)
    routes = {(r.get("src"), r.get("dst")): [c.get("id") for c in r.findall("link_ctn")] for r in zone.findall("route")}
    assert len(routes) == 16
    assert routes[("node-1", "node-3")] == ["crc-n1-up", "crc-n3-down"]
    assert routes[("node-3", "node-1")] == ["crc-n3-up", "crc-n1-down"]
    assert routes[("node-2", "node-2")] == ["crc-n2-local"]
    config = {p.get("id"): p.get("value") for p in root.find("config").findall("prop")}
    assert config["network/model"] == "CM02"


def test_a_measured_duplex_share_puts_a_link_on_each_pair_of_nodes():
    rec = CP.cluster_record([{"cluster": _record(rates=(100e6, 100e6, 100e6, 50e6))}], "d")
    zone = _parse(CP.platform_xml(rec, duplex_share=0.5)).find("zone")
    links = {ln.get("id"): float(ln.get("bandwidth")[:-3]) for ln in zone.findall("link")}
    assert len(links) == 12 + 6
    assert links["crc-n0-crc-n1"] == pytest.approx(2 * 0.5 * 100e6 * 0.98 / 8, rel=1e-5)
    assert links["crc-n1-crc-n3"] == pytest.approx(2 * 0.5 * 50e6 * 0.98 / 8, rel=1e-5)  # the slower node's
    routes = {(r.get("src"), r.get("dst")): [c.get("id") for c in r.findall("link_ctn")] for r in zone.findall("route")}
    assert routes[("node-3", "node-1")] == ["crc-n3-up", "crc-n1-crc-n3", "crc-n1-down"]
    assert routes[("node-1", "node-3")] == ["crc-n1-up", "crc-n1-crc-n3", "crc-n3-down"]
    for bad in (0.1, 1.5):
        with pytest.raises(UserError, match="duplex-share"):
            CP.platform_xml(rec, duplex_share=bad)


def test_simrun_reads_hosts_declared_one_by_one(tmp_path):
    good = tmp_path / "c.xml"
    good.write_text(CP.platform_xml(CP.cluster_record([{"cluster": _record()}], "d")))
    assert sim.cluster_of(str(good)) == (4, "FLAT", 1, 4, None)
    gap = tmp_path / "gap.xml"
    gap.write_text(good.read_text().replace('"node-2"', '"node-7"'))
    with pytest.raises(UserError, match="without gaps"):
        sim.cluster_of(str(gap))


def test_the_summary_judges_each_platform_against_the_goal():
    rows = []
    for variant, err in (("configured", 5.0), ("measured duplex", 30.0)):
        for alg, real in (("a", 1.0), ("b", 2.0)):
            rows.append({"experiment": "seed000", "platform": variant, "library": "openmpi", "collective": "allgather",
                         "shape": "3:1", "msg_bytes": 1 << 20, "algorithm": alg,
                         "error_pct": err if alg == "a" else -err,
                         "real_median_s": real, "real_min_s": real, "real_max_s": real,
                         "sim_median_s": real * (1 + err / 100) if variant == "configured" else 3 - real,
                         "ranking_preserved": variant == "configured"})
    summ = CV.summarize(pd.DataFrame(rows))
    got = dict(zip(summ["platform"], summ["goal (<= 10 %, >= 90 %)"]))
    assert got == {"configured": "both met", "measured duplex": "neither"}
    apart = dict(zip(summ["platform"], summ["ranking kept, pairs >= 5% apart (%)"]))
    assert apart == {"configured": 100.0, "measured duplex": 0.0}

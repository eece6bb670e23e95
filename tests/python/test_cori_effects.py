"""The Cori model with effects (python/collrepro/sim/platforms/cori.py --effects) and the sensitivity
sweep's argument parsing (python/collrepro/sim/validation/sensitivity.py); no simulation (sim.cori-effects
simulates)."""

import os
import xml.etree.ElementTree as ET

import pytest

from collrepro.sim.platforms import cori as cori_platform
from collrepro.sim.validation import sensitivity as sim_sensitivity
from collrepro.safeio import UserError

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)


def parse(text):
    return ET.fromstring(text.split("\n", 2)[2])


def test_committed_platform_is_the_generators_output():
    with open(os.path.join(REPO, "configs", "platforms", "cori-effects.xml"), encoding="utf-8") as f:
        assert f.read() == cori_platform.effects_xml()


def test_each_effect_is_its_parameter():
    root = parse(cori_platform.effects_xml(nic_gbps=4, msg_us=2.5, global_fraction=0.25))
    clusters = root.findall(".//cluster")
    assert len(clusters) == 7 and all(c.get("limiter_link") == "4GBps" for c in clusters)
    assert all(c.get("bw") == "8GBps" and c.get("loopback_bw") == "10GBps" for c in clusters)
    props = {p.get("id"): p.get("value") for p in root.findall("./config/prop")}
    assert props == {"smpi/os": "0:2.5e-06:0", "smpi/ois": "0:2.5e-06:0", "smpi/or": "0:2.5e-06:0"}
    _, optical = cori_platform.group_optical_gbps()
    glob = [link.get("bandwidth") for link in root.findall(".//link") if link.get("id").startswith("global-")]
    assert len(glob) == 14 and set(glob) == {f"{optical * 0.25:g}GBps"}


def test_neutral_values_give_dragonfly_adaptive():
    """All effects neutral: the same zone as dragonfly-adaptive (only the header and id differ)."""
    eff = parse(cori_platform.effects_xml(**cori_platform.NEUTRAL))
    ada = parse(cori_platform.platform_xml(7))
    assert eff.find("./config") is None
    eff.find("./zone").set("id", "dragonfly-adaptive")
    assert ET.tostring(eff) == ET.tostring(ada)


def test_nic_latency_reaches_every_node_link_only():
    """nic_lat_us adds to each node link's latency (so rendezvous messages pay it too); the
    backbones, global links and loopbacks keep theirs."""
    base = parse(cori_platform.effects_xml(nic_lat_us=0))
    root = parse(cori_platform.effects_xml(nic_lat_us=4))
    for b, c in zip(base.findall(".//cluster"), root.findall(".//cluster")):
        assert b.get("lat") == f"{cori_platform.LINK_LAT_US:g}us"
        assert c.get("lat") == f"{cori_platform.LINK_LAT_US + 4:g}us"
        assert (c.get("bb_lat"), c.get("loopback_lat")) == (b.get("bb_lat"), b.get("loopback_lat"))
    assert [x.get("latency") for x in root.findall(".//link")] == [x.get("latency") for x in base.findall(".//link")]


@pytest.mark.parametrize("kw", [{"nic_gbps": 0}, {"nic_gbps": 17}, {"msg_us": -1}, {"global_fraction": 0},
                                {"global_fraction": 1.5}, {"nic_lat_us": -1}, {"nic_lat_us": 101}])
def test_out_of_range_parameters_are_refused(kw):
    with pytest.raises(UserError):
        cori_platform.effects_xml(**kw)


def test_xml_comment_has_no_double_dash():
    text = cori_platform.effects_xml()
    comment = text[text.index("<!--") + 4:text.index("-->")]
    assert "--" not in comment


def test_sensitivity_arguments():
    assert sim_sensitivity.parse_shape("1024x8") == (1024, 8)
    assert sim_sensitivity.parse_ratio("1/3", 1024) == (256, 768)
    assert sim_sensitivity.parse_ratio("3/1", 256) == (192, 64)
    assert sim_sensitivity.parse_values(["nic=8,4"]) == {"nic": [8.0, 4.0]}
    for bad in (lambda: sim_sensitivity.parse_shape("10x3"), lambda: sim_sensitivity.parse_values(["cpu=1"]),
                lambda: sim_sensitivity.parse_values(["msg=a"]), lambda: sim_sensitivity.parse_ratio("x", 8)):
        with pytest.raises(UserError):
            bad()
    assert sim_sensitivity.main(["--effects", "nic", "--shapes", "8x1", "--ratios", "1/1", "--values", "nic=8",
                                 "--dry-run", "-o", "/nonexistent/never-written"]) == 0
    with pytest.raises(UserError):
        sim_sensitivity.main(["--effects", "cpu", "--dry-run"])


def test_sensitivity_reads_plain_and_compressed_summaries(tmp_path):
    import gzip
    text = ("algorithm,msg_bytes,median\nroot-gathering,4194304,0.04\nhalfduplex-fc,4194304,0.01\n"
            "halfduplex-fc,32768,0.001\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "summary-L0.csv").write_text(text)
    (tmp_path / "b").mkdir()
    with gzip.open(tmp_path / "b" / "summary-L0.csv.gz", "wt") as f:
        f.write(text)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "summary-L0.csv").write_text(text.replace("root-gathering", "other"))
    for d in "ab":
        assert sim_sensitivity.medians(str(tmp_path / d)) == {"root-gathering": 0.04, "halfduplex-fc": 0.01}
    assert sim_sensitivity.medians(str(tmp_path / "c")) is None  # a pair is missing: rerun it
    assert sim_sensitivity.medians(str(tmp_path / "none")) is None


def test_node_memory_platform_structure():
    """Each node a cluster of its cores (hosts node-0.. numbered node-major), a shared memory
    backbone only when --mem-gbps is set, two routes per node (to the switch over its NIC's up
    direction, back over its down direction), joined by the top zone's Floyd routing."""
    from collrepro.sim.platforms import node_memory as nm
    root = parse(nm.platform_xml(3, 4, mem_gbps=34))
    top = root.find("zone")
    assert top.get("routing") == "Floyd"
    clusters = root.findall(".//cluster")
    assert [c.get("radical") for c in clusters] == ["0-3", "4-7", "8-11"]
    assert all(c.get("bb_bw") == "34GBps" and c.get("bb_sharing_policy") == "SHARED" for c in clusters)
    assert [r.get("id") for r in top.findall("./zone/router")] == ["switch-router"]
    routes = {(r.get("src"), r.get("dst")): [(l.get("id"), l.get("direction")) for l in r]
              for r in root.findall(".//zoneRoute")}
    assert routes == {**{(f"n{n}", "switch"): [(f"nic{n}", "UP")] for n in range(3)},
                      **{("switch", f"n{n}"): [(f"nic{n}", "DOWN")] for n in range(3)}}
    flat = parse(nm.platform_xml(3, 4, mem_gbps=0))
    assert all(c.get("bb_bw") is None for c in flat.findall(".//cluster"))
    for bad in ({"nodes": 1, "cores": 4}, {"nodes": 3, "cores": 0}, {"nodes": 3, "cores": 4, "mem_gbps": -1},
                {"nodes": 3, "cores": 4, "routes": "star"}):
        with pytest.raises(UserError):
            nm.platform_xml(**bad)


def node_to_node(root):
    """{(a, b): [(link, direction), ...]} between every ordered pair of node zones: the pair's own
    <zoneRoute>, or the two through the switch joined at the switch's router (what Floyd routing
    returns where they are the only path)."""
    hops = {(r.get("src"), r.get("dst")): r for r in root.findall(".//zoneRoute")}
    nodes = [c.get("id") for c in root.findall(".//cluster")]
    paths = {}
    for a in nodes:
        for b in (x for x in nodes if x != a):
            legs = [hops[(a, b)]] if (a, b) in hops else [hops[(a, "switch")], hops[("switch", b)]]
            assert legs[0].get("gw_src") == "r" + a[1:] and legs[-1].get("gw_dst") == "r" + b[1:]
            assert all(x.get("gw_dst") == y.get("gw_src") for x, y in zip(legs, legs[1:]))
            paths[(a, b)] = [(l.get("id"), l.get("direction")) for leg in legs for l in leg]
    return paths


def test_node_memory_routes_through_the_switch_cross_the_pair_routes_links():
    """The switch platform and the former pair-routed one: the same clusters and links, and
    between every two nodes the same links in the same directions (the switch adds none)."""
    from collrepro.sim.platforms import node_memory as nm
    switch, pairs = (parse(nm.platform_xml(6, 2, mem_gbps=16, routes=r)) for r in ("switch", "pairs"))
    assert pairs.find("zone").get("routing") == "Full" and not pairs.findall(".//router")
    for tag in ("cluster", "link"):
        assert [e.attrib for e in switch.iter(tag)] == [e.attrib for e in pairs.iter(tag)]
    routed = node_to_node(switch)
    assert len(routed) == 30 and routed == node_to_node(pairs)


def test_node_memory_platform_grows_linearly_in_nodes():
    """No route per node pair: clusters, links and routes 1, 1 and 2 per node, and the file's size
    grows linearly (doubling the nodes at most doubles what the nodes add; the pair-routed file's
    growth quadruples)."""
    from collrepro.sim.platforms import node_memory as nm

    def size(nodes, routes):
        return len(nm.platform_xml(nodes, 8, mem_gbps=16, routes=routes))

    for nodes in (16, 128, 384):
        root = parse(nm.platform_xml(nodes, 8, mem_gbps=16))
        counts = [len(root.findall(f".//{tag}")) for tag in ("cluster", "link", "zoneRoute")]
        assert counts == [nodes, nodes, 2 * nodes]
        assert all("switch" in (r.get("src"), r.get("dst")) for r in root.findall(".//zoneRoute"))
    grows = [size(256, r) - size(128, r) for r in ("switch", "pairs")]
    before = [size(128, r) - size(64, r) for r in ("switch", "pairs")]
    assert grows[0] <= 2.1 * before[0] and grows[1] >= 3.5 * before[1]
    assert size(384, "switch") < 250_000 < 2_500_000 < size(128, "pairs")


def test_simrun_places_one_rank_per_core_on_node_memory_platforms(tmp_path):
    """simrun takes the node-memory platform's hosts for cores: one rank per host in block order,
    the description in nodes x cores, and a clear refusal of --ppn > 1 or --order spread."""
    from collrepro.sim.platforms import node_memory as nm
    from collrepro.sim.running import run as sim
    path = tmp_path / "nm.xml"
    path.write_text(nm.platform_xml(4, 8, mem_gbps=16))
    place = sim.Placement(str(path), 24, 1, "block")
    assert place.ids == list(range(24))
    assert "24 ranks, one per core, on 3 nodes x 8 cores" in place.text
    for ppn, order in ((8, "block"), (1, "spread")):
        with pytest.raises(UserError, match="hosts are cores"):
            sim.Placement(str(path), 24, ppn, order)
    assert sim.cluster_of(str(path))[1:4] == (sim.CORES_AS_HOSTS, 4, 8)


def test_paper_runs_default_to_cori_memory_made_for_their_shape(tmp_path):
    from collrepro.sim.running import paper as sim_paper
    run = sim_paper.load_runs()["seed000-fc-1024x8"]
    argv, out = sim_paper.simrun_argv("seed000-fc-1024x8", run, "cori-memory", str(tmp_path))
    assert argv[argv.index("--platform") + 1] == str(tmp_path / "platforms" / "cori-memory-128x8.xml")
    assert argv[argv.index("--ppn") + 1] == "1" and out.endswith("seed000-fc-1024x8-cori-memory")
    path = sim_paper.write_generated_platform("cori-memory", run, str(tmp_path))
    text = open(path).read()
    from collrepro.sim.platforms import node_memory as node_memory_platform
    assert 'radical="1016-1023"' in text and f'bb_bw="{node_memory_platform.CORI_MEM_GBPS:g}GBps"' in text
    assert sim_paper.platform_path("flat-crossbar", run, str(tmp_path))[1] == 8

"""The emulated cluster's pure parts (python/collrepro/cluster/plan.py, fidelity.verdict, mpi's
agent and host files), without root: rates, addresses, names, the cleanup plan and the route check."""

import ipaddress

import pytest

from collrepro.cluster import fidelity, mpi
from collrepro.cluster import plan as P
from collrepro.safeio import UserError


@pytest.mark.parametrize("text, bits", [("1gbit", 1e9), ("100mbit", 1e8), ("12.5mbps", 1e8), ("10Mbit", 1e7),
                                        (" 2500kbit ", 2.5e6)])
def test_rates_in_tc_words(text, bits):
    if bits < P.MIN_RATE:
        with pytest.raises(UserError):
            P.parse_rate(text)
    else:
        assert P.parse_rate(text) == bits


@pytest.mark.parametrize("text", ["", "fast", "1 gigabit", "-1gbit", "1e9bit", "0bit", "1kbit", "101gbit", "1.gbit"])
def test_bad_rates_are_one_line_naming_the_option(text):
    with pytest.raises(UserError) as err:
        P.parse_rate(text, "--link")
    assert str(err.value).startswith("--link") and "\n" not in str(err.value)


def test_rates_print_back_in_tc_words():
    for text in ("1gbit", "100mbit", "800mbit", "12500kbit"):
        assert P.format_rate(P.parse_rate(text)) == text


def test_addresses_are_distinct_inside_the_benchmark_block_and_never_the_network_address():
    block = ipaddress.ip_network("198.18.0.0/15")
    addrs = [P.address(i) for i in range(P.MAX_NODES)]
    assert len(set(addrs)) == P.MAX_NODES
    for a in addrs:
        ip = ipaddress.ip_address(a)
        assert ip in block and ip in P.SUBNET and ip not in (P.SUBNET.network_address, P.SUBNET.broadcast_address)


def test_every_name_carries_the_prefix():
    cluster = P.plan(4, 1e9)
    names = [P.SWITCH, P.BRIDGE] + [n.name for n in cluster.nodes] + [P.switch_port(i) for i in range(4)]
    assert all(P.owned(n) for n in names)
    assert len(set(names)) == len(names)
    assert P.NODE_IF.startswith(P.PREFIX.rstrip("-"))  # crc0: inside a node, named like the rest


def test_node_count_and_cores_are_checked():
    for bad in (0, 1, P.MAX_NODES + 1):
        with pytest.raises(UserError, match="--nodes"):
            P.plan(bad, 1e9)
    with pytest.raises(UserError, match="--cores-per-node"):
        P.plan(2, 1e9, cores_per_node=0)


def test_cores_are_disjoint_where_the_machine_has_enough_else_shared():
    own = P.plan(4, 1e9, cores_per_node=2, machine_cpus=8)
    assert not own.cpus_shared
    cpus = [c for n in own.nodes for c in n.cpus]
    assert sorted(cpus) == list(range(8))
    shared = P.plan(4, 1e9, cores_per_node=1, machine_cpus=2)
    assert shared.cpus_shared and all(n.cpus == [] for n in shared.nodes)


def test_one_node_slowed_and_settings_tell_clusters_apart():
    rates = P.parse_node_rates(["crc-n1=800mbit"], 4)
    slow = P.plan(4, 1e9, node_rates=rates)
    assert [n.rate for n in slow.nodes] == [1e9, 8e8, 1e9, 1e9]
    assert slow.settings() != P.plan(4, 1e9).settings()
    assert P.plan(4, 1e9).settings() == P.plan(4, 1e9).settings()
    with pytest.raises(UserError, match="no node"):
        P.parse_node_rates(["crc-n9=1gbit"], 4)
    with pytest.raises(UserError, match="NODE=RATE"):
        P.parse_node_rates(["800mbit"], 4)


def test_burst_holds_two_frames_and_stays_small_against_the_pingpong():
    for rate in (P.MIN_RATE, 1e8, 1e9):
        burst = P.burst_bytes(rate)
        assert 2 * P.FRAME_BYTES <= burst <= 0.05 * fidelity.LARGE  # a few % of the ping-pong's largest size
    args = P.tbf_args(1e9)
    assert args[:3] == ["tbf", "rate", "1000000000bit"]


def test_cleanup_plan_touches_only_the_prefix_and_removes_the_switch_last():
    steps = P.cleanup_plan(["crc-sw", "other", "crc-n1", "crc-n0"], ["lo", "eth0", "crc-p3"],
                           ["/", "/run/c/uts/crc-n0", "/run/netns/other", "/run/x/uts/crc-n0"], "/run/c")
    assert steps == [("processes", "crc-n0"), ("processes", "crc-n1"), ("processes", "crc-sw"),
                     ("netns", "crc-n0"), ("netns", "crc-n1"), ("netns", "crc-sw"),
                     ("link", "crc-p3"), ("mount", "/run/c/uts/crc-n0")]
    assert P.cleanup_plan(["other"], ["eth0"], ["/"], "/run/c") == []


def test_routes_out_are_found():
    inside = [{"dst": "198.18.0.0/24", "dev": "crc0"}]
    assert P.routes_out(inside) == []
    for bad in ({"dst": "default", "gateway": "198.18.0.254"}, {"dst": "10.0.0.0/8", "dev": "crc0"},
                {"dst": "198.18.0.0/24", "gateway": "198.18.0.9"}, {"dst": "198.16.0.0/14"}, {"dst": "fe80::/64"}):
        assert P.routes_out(inside + [bad]) == [bad]


def test_fidelity_verdict_is_the_slope_between_64k_and_1m():
    rate = 1e8
    lat = 50e-6

    def series(bw):
        return [{"bytes": b, "time_s": lat + b * 8 / bw} for b in (1, 1024, 65536, 1 << 20)]
    ok = fidelity.verdict(series(rate * 0.95), rate)
    assert ok["within"] and ok["ratio"] == pytest.approx(0.95)
    assert ok["latency_s"] == pytest.approx(lat + 8 / (0.95 * rate))
    assert not fidelity.verdict(series(rate * 0.85), rate)["within"]
    assert not fidelity.verdict(series(rate * 1.2), rate)["within"]
    with pytest.raises(UserError):
        fidelity.verdict(series(rate)[:2], rate)


def test_per_size_fidelity_charges_each_size_against_its_link_time():
    """4 KiB leaves free (the token bucket's credit), 16 KiB at 1.46 of its link time (as measured at
    100 Mbit/s), 1 MiB at the rate: only 1 MiB is held, and the line says how far the rest are off."""
    rate, lat = 1e8, 30e-6
    link = {b: b * 8 / rate for b in (4096, 16384, 1 << 20)}
    series = [{"bytes": 1, "time_s": lat}, {"bytes": 1024, "time_s": lat},
              {"bytes": 4096, "time_s": lat}, {"bytes": 16384, "time_s": lat + 1.46 * link[16384]},
              {"bytes": 1 << 20, "time_s": lat + 1.02 * link[1 << 20]}]
    sizes = fidelity.per_size(series, rate, lat)
    assert [s["bytes"] for s in sizes] == [4096, 16384, 1 << 20]          # from 4 KiB, in order
    assert [round(s["charged"], 2) for s in sizes] == [0.0, 1.46, 1.02]
    assert [s["held"] for s in sizes] == [False, False, True]
    line = fidelity.sizes_line(sizes)
    assert "held within +-10% of the link's time: 1 MiB;" in line
    assert "4 KiB x0.00, 16 KiB x1.46" in line
    assert "not held" not in fidelity.sizes_line(sizes[2:])


def test_agent_refuses_hosts_outside_the_cluster_and_hostfiles_list_every_node():
    doc = P.plan(3, 1e9, cores_per_node=2, machine_cpus=2).to_json()
    script = mpi.agent_script("/run/c", doc)
    for n in doc["nodes"]:
        assert f"  {n['name']}) exec ip netns exec {n['name']} nsenter --uts=/run/c/uts/{n['name']}" in script
    assert "*) echo" in script and "exit 255" in script
    ompi, hydra = mpi.hostfiles(doc)
    assert ompi.splitlines() == ["crc-n0 slots=2", "crc-n1 slots=2", "crc-n2 slots=2"]
    assert hydra.splitlines() == ["crc-n0:2", "crc-n1:2", "crc-n2:2"]


def test_slurm_config_has_every_node_at_its_address_and_the_controller_on_the_head():
    from collrepro.cluster import slurm
    doc = P.plan(4, 1e9, cores_per_node=2, machine_cpus=2, slurm=True).to_json()
    conf = slurm.config("/run/c/slurm", doc).splitlines()
    assert "SlurmctldHost=crc-n0(198.18.0.1)" in conf
    nodes = [line for line in conf if line.startswith("NodeName=")]
    assert [line.split()[0] for line in nodes] == [f"NodeName=crc-n{i}" for i in range(4)]
    assert all(f"NodeAddr={P.address(i)} CPUs=2" in nodes[i] for i in range(4))
    assert "PartitionName=cluster Nodes=crc-n0,crc-n1,crc-n2,crc-n3 Default=YES MaxTime=INFINITE State=UP" in conf


def test_fidelity_takes_the_median_launch_so_one_disturbed_launch_does_not_decide():
    rate = 1e8
    good = {"bandwidth_bit_s": 0.97 * rate, "latency_s": 16e-6}
    odd = {"bandwidth_bit_s": 1.3 * rate, "latency_s": 9e-6}
    slow = {"bandwidth_bit_s": 0.5 * rate, "latency_s": 9e-3}
    v = fidelity.combine([good, odd, good, slow, good], rate)
    assert v["within"] and v["ratio"] == pytest.approx(0.97) and v["latency_s"] == pytest.approx(16e-6)
    assert len(v["launch_bandwidths_bit_s"]) == 5
    assert not fidelity.combine([slow, slow, good], rate)["within"]


def test_fidelity_stops_once_the_median_cannot_change_side():
    ok, low, high = {"within": True, "ratio": 1.0}, {"within": False, "ratio": 0.5}, {"within": False, "ratio": 1.5}
    assert fidelity.LAUNCHES == 5
    assert fidelity.decided([ok, ok, ok]) and fidelity.decided([low, low, low])
    assert fidelity.decided([high, ok, high, high])
    assert not fidelity.decided([ok, ok, low, high]) and not fidelity.decided([low, high, low, high])
    assert fidelity.decided([ok, low, ok, high, ok])

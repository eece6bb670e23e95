"""results/versions/README.md quotes the two committed calibrations (calibration/, an Intel host;
calibration-amd/, an AMD EPYC host) in its section "Two hosts, the shipped procedure, placebos".
Each number that section states is read out of its text and held to what the calibration
generated from its runs (summary.csv, and its README's shipped-procedure table and forecast
line), so a regenerated calibration that moves them fails here until the prose follows. No MPI,
no launch; pandas only."""

import re
from pathlib import Path

import pandas as pd
import pytest

RESULTS = Path(__file__).resolve().parents[2] / "results" / "versions"
HOSTS = {"AMD": RESULTS / "calibration-amd", "Intel": RESULTS / "calibration"}


def section():
    text = (RESULTS / "README.md").read_text(encoding="utf-8")
    start = text.index("## Two hosts, the shipped procedure, placebos")
    end = text.index("\n## ", start + 3)
    return " ".join(text[start:end].split())  # one line: the prose wraps anywhere


def number(pattern):
    found = re.search(pattern, section())
    assert found, f"results/versions/README.md no longer says /{pattern}/"
    return [int(g.replace(",", "")) for g in found.groups()]


def shipped(host):
    """The generated README's table "The shipped procedure, end to end": one row per setting,
    with setting, injected_pct, detected, injected, false_changes."""
    text = (HOSTS[host] / "README.md").read_text(encoding="utf-8")
    start = text.index("## The shipped procedure, end to end")
    rows = []
    for line in text[start:text.index("\n## ", start + 3)].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or cells[0] in ("setting", "---"):
            continue
        pct = re.search(r"\+(\d+) % injected", cells[0])
        false, outside = map(int, cells[3].split("/"))
        found, injected = map(int, cells[4].split("/")) if "/" in cells[4] else (0, 0)
        rows.append(dict(setting=cells[0], injected_pct=int(pct.group(1)) if pct else 0, detected=found,
                         injected=injected, false_changes=false, outside=outside))
    assert rows, f"{host}: the calibration README has no shipped-procedure table"
    return pd.DataFrame(rows)


def by_setting(frame, pct):
    return frame[frame["injected_pct"] == pct].set_index("setting")


def forecast_within(host):
    """(rows within 10 points, rows) of the generated README's forecast section."""
    text = (HOSTS[host] / "README.md").read_text(encoding="utf-8")
    found = re.search(r"(\d+) of (\d+) rows are within 10 points", text)
    assert found, f"{host}: the calibration README has no forecast line"
    return int(found.group(1)), int(found.group(2))


def floors(host):
    summary = pd.read_csv(HOSTS[host] / "summary.csv")
    at16 = summary[summary["launches_other"] == 16]["noise_median"]
    return round(100 * at16.min()), round(100 * at16.max())


@pytest.mark.parametrize("host", ["AMD", "Intel"])
def test_noise_floors_at_16_rounds_are_the_calibrations(host):
    amd_low, amd_high, intel_low, intel_high = number(
        r"is (\d+)-(\d+) % on the AMD host and (\d+)-(\d+) % on the Intel host")
    stated = {"AMD": (amd_low, amd_high), "Intel": (intel_low, intel_high)}[host]
    assert floors(host) == stated


def test_the_shipped_procedure_on_the_amd_host():
    low, high, of = number(r"finds \+25 % at (\d+)-(\d+) of (\d+) injected points")
    at25 = by_setting(shipped("AMD"), 25)
    assert (at25["detected"].min(), at25["detected"].max()) == (low, high)
    assert set(at25["injected"]) == {of}
    assert "+10-15 % at none" in section()
    for pct in (10, 15):
        assert by_setting(shipped("AMD"), pct)["detected"].sum() == 0
    assert "no setting has a false change" in section()
    assert shipped("AMD")["false_changes"].sum() == 0


def test_the_intel_hosts_false_change_is_stated():
    false, outside = number(r"one false change on the Intel host \(\+25 % slowlib, (\d+) of (\d+)\)")
    wrong = shipped("Intel").query("false_changes > 0")
    assert len(wrong) == 1 and "+25 % injected (slowlib)" in wrong.index.tolist() + wrong["setting"].tolist()
    assert (int(wrong["false_changes"].iloc[0]), int(wrong["outside"].iloc[0])) == (false, outside)


def test_the_placebos_effect_is_as_stated():
    flagged, compared = number(r"the first-pass tables flag (\d+) points? of ([\d,]+) placebo comparisons")
    assert "neither placebo shows an effect of the interposition in the shipped procedure or at 16 and 48 rounds" \
        in section()
    summary = pd.read_csv(HOSTS["AMD"] / "summary.csv")
    placebos = summary[(summary["injected_pct"] == 0) & (summary["setting"] != "aa")]
    assert placebos[placebos["launches_other"].isin([16, 48])]["false_changes"].sum() == 0
    assert (placebos["false_changes"].sum(), placebos["outside"].sum()) == (flagged, compared)
    assert shipped("AMD").query("setting.str.startswith('placebo')", engine="python")["false_changes"].sum() == 0


def test_the_forecast_rows_within_10_points():
    amd, amd_rows, intel, intel_rows = number(
        r"within 10 points of the outcome in (\d+) of (\d+) rows there \((\d+) of (\d+) on the Intel host\)")
    assert forecast_within("AMD") == (amd, amd_rows)
    assert forecast_within("Intel") == (intel, intel_rows)


def test_the_intel_host_found_10_percent_everywhere():
    found, of = number(r"on the Intel host the shipped procedure found \+10 % at (\d+) of (\d+) injected points")
    at10 = by_setting(shipped("Intel"), 10)
    assert set(at10["detected"]) == {found} and set(at10["injected"]) == {of}

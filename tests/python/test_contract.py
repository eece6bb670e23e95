"""The contract module: derived column sets, file names, and the generated CONTRACT.md."""

from pathlib import Path

from collrepro import contract as C

CONTRACT_MD = Path(__file__).resolve().parents[2] / "results" / "CONTRACT.md"


def test_contract_md_is_generated_and_current():
    """results/CONTRACT.md must be the output of `python3 -m collrepro.contract --markdown`."""
    assert CONTRACT_MD.read_text(encoding="utf-8") == C.markdown(), (
        "results/CONTRACT.md is stale: cd python && /usr/bin/python3 -m collrepro.contract "
        "--markdown > ../results/CONTRACT.md")


def test_markdown_documents_both_versions():
    text = C.markdown()
    assert f"version {C.VERSION}" in text and "## Version 1" in text
    assert all(f"`{c}`" in text for c in C.RAW_COLUMNS + C.SUMMARY_MEASUREMENT_COLUMNS)
    assert "torus-zerocopy" not in text


def test_column_order_and_sets():
    assert C.RAW_COLUMNS.index("family") < C.RAW_COLUMNS.index("msg_bytes") < C.RAW_COLUMNS.index("p")
    assert C.RAW_COLUMNS[-4:] == ["rep", "time_s", "valid", "time_from_last_s"]
    clock = C.RAW_COLUMNS.index("clock")
    assert C.RAW_COLUMNS[clock + 1:clock + 3] == ["arrival", "arrival_max_s"]
    assert C.TABLE_COLUMNS_OF[4]["raw"][-3:] == ["rep", "time_s", "valid"]      # before the arrival columns
    assert "arrival" not in C.TABLE_COLUMNS_OF[4]["summary"] and "median_from_last" in C.SUMMARY_COLUMNS
    assert len(C.SHAPE_COLUMNS) == len(set(C.SHAPE_COLUMNS))
    assert C.SHAPE_OWNERS["distribution"] == {"inter-group", "intra"}
    assert set(C.TYPES) == set(C.RAW_COLUMNS) | set(C.SUMMARY_COLUMNS) | set(C.PHASES_COLUMNS)
    assert set(C.PHASES_COLUMNS) - set(C.RAW_COLUMNS) == {"phase_index", "phase", "phase_s", "phase_end_s"}
    assert C.ENUMS["valid"] == [0, 1] and "dist_seed" in C.OPTIONAL_COLUMNS
    assert C.family_of_collective("neighbor-alltoallw") == "isomorphic"
    assert "contract_version" in C.META_REQUIRED and "contract_version" not in C.V1_META_REQUIRED
    assert C.V1["raw"][-3:] == ["rep", "time_s", "valid"] and "family" not in C.V1["summary"]


def test_file_names():
    assert C.file_name("raw", 3, 1) == "raw-L3-S1.csv"
    assert C.parse_file_name("raw-L3-S1.csv") == ("raw", 3, 1)
    assert C.parse_file_name("meta-L0.json") == ("meta", 0, None)
    assert C.parse_file_name("phases-L2.csv") == ("phases", 2, None) and C.FILE_KINDS["phases"]["optional"]
    assert C.parse_file_name("meta-L0.csv") is None and C.parse_file_name("raw-0.csv") is None


def test_module_prints_markdown(capsys):
    assert C.main(["--markdown"]) == 0
    assert capsys.readouterr().out == C.markdown()
    assert C.main([]) == 2

"""The contract module: derived column sets, file names, and the generated CONTRACT.md."""

from pathlib import Path

from collrepro import contract as C

CONTRACT_MD = Path(__file__).resolve().parents[2] / "results" / "CONTRACT.md"


def test_contract_md_is_generated_and_current():
    """results/CONTRACT.md must be the output of `collrepro-py contract markdown`."""
    assert CONTRACT_MD.read_text(encoding="utf-8") == C.markdown(), (
        "results/CONTRACT.md is stale: ./collrepro-py contract markdown > results/CONTRACT.md")


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


def test_the_contract_verb_prints_markdown(capsys):
    from collrepro import contract_files, safeio
    assert contract_files.main(["markdown"]) == 0
    assert capsys.readouterr().out == C.markdown()
    assert safeio.run_cli("contract", contract_files.main, []) == safeio.EXIT_BAD_INPUT


def test_every_enumerated_column_names_a_set_of_the_contract():
    """Every str column with a closed set names one of enums (int 0/1 columns list theirs)."""
    for name, col in C.COLUMNS.items():
        if "enum" in col:
            assert isinstance(col["enum"], str) == (col["type"] == "str"), name
            if isinstance(col["enum"], str):
                assert col["enum"] in C.ENUM_SETS, name
    for column in ("sync", "clock", "arrival", "collective", "family", "topology", "placement",
                   "distribution", "block_rule", "mpi_impl"):
        assert column in C.ENUMS, column
    assert "round-time" in C.ENUMS["sync"] and "smpi" in C.ENUMS["mpi_impl"]
    assert C.ENUM_SETS["collective"] == C.COLLECTIVES and C.ENUM_SETS["family"] == list(C.FAMILIES)
    for name in ("kind", "resync", "binding", "clock_sync"):   # meta and configuration sets
        assert C.ENUM_SETS[name]
    assert C.value_problem("sync", "round-time") is None
    assert "not one of" in C.value_problem("placement", "scatter")


def _meta_as_written():
    """A launch's metadata with exactly the keys collbench writes (none of the sometimes keys)."""
    meta = {k: None for k in C.META_KEYS if k not in C.META_SOMETIMES}
    meta.update({k: {sub: None for sub in keys} for k, keys in C.META_NESTED.items()})
    meta["binding"]["requested"] = "core"
    return meta


def test_meta_problems_names_a_promised_key_not_written_and_an_unpromised_one():
    assert C.meta_problems(_meta_as_written()) == []
    assert set(C.META_REQUIRED) <= set(C.META_KEYS) and set(C.META_SOMETIMES) <= set(C.META_KEYS)
    assert set(C.META_NESTED) <= set(C.META_KEYS)
    assert "built_utc" not in C.META_NESTED["build"] and "built_utc" not in C.CONTRACT["meta"]["keys"]["build"]
    meta = _meta_as_written()
    del meta["setup_s"]
    meta["build"]["built_utc"] = "2026-01-01T00:00:00Z"
    meta["surprise"] = 1
    meta["binding"]["requested"] = "socket"
    problems = C.meta_problems(meta)
    assert any("'setup_s' is promised but not written" in p for p in problems)
    assert any("'surprise' is written but not in the contract" in p for p in problems)
    assert any(p.startswith("key 'build' has") for p in problems)
    assert any("'socket' is not one of none|core" in p for p in problems)


def test_the_writer_values_check_refuses_a_value_outside_the_contract():
    """tests/driver/check_contract_values.py (ctest driver.contract_values, fed by the C++ enums,
    families and registry) fails for a value the contract lacks and for a set it leaves out."""
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "driver" / "check_contract_values.py"
    spec = importlib.util.spec_from_file_location("check_contract_values", path)
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    values = {name: list(v) for name, v in C.ENUM_SETS.items()}
    assert check.problems_of(values) == []
    values["placement"].append("scatter")
    del values["resync"]
    problems = check.problems_of(values)
    assert any("placement: 'scatter' is not one of" in p for p in problems)
    assert any("the loader refuses" in p and "scatter" in p for p in problems)
    assert any(p.startswith("set resync:") for p in problems)

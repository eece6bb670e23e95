#!/usr/bin/python3
"""Every value collbench can write, through the Python contract (ctest driver.contract_values).

  check_contract_values.py CONTRACT_VALUES_BINARY

Runs the binary (tests/driver/contract_values.cpp: {"<enum set>": [values]} from the C++ enums,
the families and the registry) and checks each value against collrepro.contract: the column's
values (contract.value_problem, which the loader's schema applies to every cell) or the set's.
Also checks that every set of the contract is produced by the writer, value for value, so that
neither side can drift. Prints one line per problem; exit 1 if any.
"""

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from collrepro import contract as C  # noqa: E402
from collrepro.analysis.loading import schema  # noqa: E402


def problems_of(values):
    out = []
    for name, produced in values.items():
        if name not in C.ENUM_SETS:
            out.append(f"the writer produces set {name!r}, which the contract lacks")
            continue
        for value in produced:
            problem = C.value_problem(name, value) if name in C.COLUMNS else None
            if value not in C.ENUM_SETS[name]:
                problem = problem or f"set {name}: {value!r} is not one of {'|'.join(C.ENUM_SETS[name])}"
            if problem:
                out.append(f"the writer can produce {problem}")
        if name in C.COLUMNS:
            # The loader's own check of a column of these values.
            text = schema.np.array(produced, dtype=object)
            try:
                schema._convert_column("contract_values", name, text, schema.np.ones(len(text), bool))
            except schema.InputError as err:
                out.append(f"the loader refuses a value the writer produces: {err}")
    for name, allowed in C.ENUM_SETS.items():
        # Sets the writer produces in part (topology, kind: whatever is registered) need only be inside.
        if name in values and name not in ("topology", "kind") and sorted(values[name]) != sorted(allowed):
            out.append(f"set {name}: the contract has {allowed}, the writer {values[name]}")
        if name not in values:
            out.append(f"set {name}: the writer's values are not enumerated (add it to contract_values.cpp)")
    return out


def main(argv):
    values = json.loads(subprocess.run([argv[1]], check=True, capture_output=True, text=True).stdout)
    problems = problems_of(values)
    for p in problems:
        print(f"check_contract_values: {p}")
    if not problems:
        print(f"check_contract_values: {sum(map(len, values.values()))} values of {len(values)} sets, all in the contract")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""A job sized to the machine: `collrepro run --np auto`, the default of `./collrepro run`.

One process per core, never more: with more ranks than cores every time measures the
scheduler as much as the algorithm, and the report says so in its first lines. An inter-group
experiment's group ratios (groups.ratios) each need a multiple of p + q processes; the ratios
that do not fit the chosen count are left out, and the one line that says what was chosen
names them and the count each needs:

  fit(["1/1", "5/3"], 2)  -> 2 processes, ratios ["1/1"], left out {"5/3": 8}
  fit(["1/1", "5/3"], 16) -> 16 processes, both ratios
  fit(["5/3"], 4)         -> 8 processes, oversubscribed (no count up to 4 fits 5/3), and the
                             line says so

The process count is the largest n <= cores that fits at least one ratio (all of n when the
experiment names no ratios, every core). Pure, unit tested in tests/python/test_job_size.py; launch/runs.py
asks collbench for the experiment's effective groups.ratios and passes the kept ones on with
--set.
"""

import os
import re
from dataclasses import dataclass, field


def cores():
    """The cores this process may run on (its CPU affinity, as the launcher's slots)."""
    return len(os.sched_getaffinity(0))


def ratio_parts(text):
    """ "5/3" -> p + q = 8; None for what is not A/B (collbench names the field then)."""
    m = re.fullmatch(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*", text)
    if not m or int(m[1]) < 1 or int(m[2]) < 1:
        return None
    return int(m[1]) + int(m[2])


@dataclass
class Fit:
    """The chosen process count and ratios, and what was left out."""
    np: int
    cores: int
    ratios: list = field(default_factory=list)    # kept, in the experiment's order
    left_out: dict = field(default_factory=dict)  # ratio -> the multiple of processes it needs

    @property
    def oversubscribed(self):
        return self.np > self.cores

    def line(self):
        """What was chosen, in one line."""
        if self.oversubscribed:
            per = f"{self.np} processes on {self.cores} core(s), oversubscribed: no ratio fits {self.cores}"
        elif self.np < self.cores:
            per = f"{self.np} processes, one per core on {self.np} of {self.cores} cores (no ratio fits more)"
        else:
            per = f"{self.np} processes, one per core of {self.cores}"
        if not self.ratios:
            return per
        kept = f"groups.ratios [{', '.join(self.ratios)}]"
        if not self.left_out:
            return f"{per}; {kept}"
        out = ", ".join(f"{r} needs a multiple of {n}" for r, n in self.left_out.items())
        return f"{per}; {kept} (left out: {out}; set COLLREPRO_NP or --np to choose)"


def fit(ratios, n_cores):
    """The job for `ratios` (the experiment's groups.ratios; empty when it has none) on `n_cores`."""
    n_cores = max(1, int(n_cores))
    sums = {r: ratio_parts(r) for r in ratios}
    if not ratios or any(s is None for s in sums.values()):
        return Fit(n_cores, n_cores, list(ratios))  # nothing to fit (collbench judges a bad ratio)
    fitting = [n for n in range(n_cores, 0, -1) if any(n % s == 0 for s in sums.values())]
    np_ = fitting[0] if fitting else min(sums.values())
    kept = [r for r in ratios if np_ % sums[r] == 0]
    return Fit(np_, n_cores, kept, {r: s for r, s in sums.items() if np_ % s})

"""The papers' reported numbers, in one place, each with where it comes from.

Seed 000 (the half-duplex inter-group paper): the text accompanying its Fig. 4 states the
improvement T(baseline)/T(proposed) at 4 MB for each panel; the figure itself is an image and
gives no other values. Seed 001 (the full-duplex inter-group paper): its text states no measured
value for Figs. 4-6; only the abstract's headline "up to 23.67x on 256 compute nodes" (setting and
size not stated). Its Eq. 5 limits are a model (models.eq5_limit), not a measurement, and are
labelled "model" wherever they appear.
"""

from typing import NamedTuple

SEED000_SOURCE = ("seed 000 (the half-duplex inter-group paper), the text accompanying Fig. 4: "
                  "improvement at 4 MB")
SEED000_SIZE_TEXT = "4 MB"
SEED000_SIZE_BYTES = 4 << 20        # the repository's paper configs run the paper's 4 MB as 4 MiB
SEED000_SCALED_NPROCS = 256         # a run at another process count is compared with these panels

# Improvement T(baseline)/T(proposed) at 4 MB, keyed by (topology, nprocs, p, q): fully connected
# is root-gathering / halfduplex-fc, ring is ring-allgather / halfduplex-ring. 1024 processes ran
# 8 per node, 256 processes 1 per node. The numbers are the claims file's (configs/paper/claims.yaml),
# where each stands with the paper's words: stated once, there.
_TOPOLOGY = {"halfduplex-fc": "fully-connected", "halfduplex-ring": "ring"}


def _seed000_fig4():
    from collrepro.analysis.figures import claims
    _, figures, _ = claims.load()
    table = {}
    for fig in figures.values():
        for c in fig["claims"] if fig["paper"] == "seed 000" else []:
            at = c["at"]
            table[(_TOPOLOGY[c["proposed"][0]], at["p"] + at["q"], at["p"], at["q"])] = float(c["value"])
    return table


SEED000_FIG4 = _seed000_fig4()

SEED001_HEADLINE = 23.67
SEED001_HEADLINE_NPROCS = 256
SEED001_HEADLINE_TEXT = "paper abstract: up to 23.67x at 256 nodes, setting and size not stated"
SEED001_NO_VALUES = ("paper: the text of seed 001 gives no measured values for this figure "
                     "(only the abstract's 'up to 23.67x on 256 compute nodes', setting and size "
                     "not stated)")

# Model, not measurement: seed 001 Eq. 5 (models.eq5_limit) at the group sizes of each setting of
# configs/paper/seed001-*.yaml.
SEED001_EQ5_MODEL = {"setting 1": 7.0, "setting 2": 4.84, "setting 3": 4.21, "setting 4": 6.68,
                     "setting 5": 7.0, "setting 6": 7.0, "setting 7": 4.84, "setting 8": 4.84}


class PaperValue(NamedTuple):
    """A reported value; p, q, nprocs are the paper's panel, scaled when it is not the run's."""
    value: float
    nprocs: int
    p: int
    q: int
    scaled: bool

    def note(self):
        """'paper: 5.3x at 4 MB' or 'paper (256 procs, same p:q): 5.3x'."""
        if self.scaled:
            return f"paper ({self.nprocs} procs, same p:q): {self.value:g}x"
        return f"paper: {self.value:g}x at {SEED000_SIZE_TEXT}"


def seed000_fig4(topology, nprocs, p, q):
    """The paper's Fig. 4 improvement for this panel, or None.

    A run at a process count the paper did not use (scaled down, e.g. 64 processes) gets the
    256-process panel with the same p:q, marked scaled.
    """
    p, q, nprocs = int(p), int(q), int(nprocs)
    exact = SEED000_FIG4.get((topology, nprocs, p, q))
    if exact is not None:
        return PaperValue(exact, nprocs, p, q, False)
    for (t, n, pp, qq), v in SEED000_FIG4.items():
        if t == topology and n == SEED000_SCALED_NPROCS and pp * q == qq * p:
            return PaperValue(v, n, pp, qq, True)
    return None


def seed000_note(topology, nprocs, p, q):
    found = seed000_fig4(topology, nprocs, p, q)
    return found.note() if found else "paper: -"

"""When two simulated times are the same: the rerun spread of a deterministic simulation.

SimGrid rounds every event's date to its surf/precision (1e-9 s), and a rerun does not always
land on the same steps: results/sim/validation's simulations rerun with the same commands
(2026-12-07, SimGrid 3.32 from Debian) gave 754 of 800 medians identical and 46 one step (1.0e-9 s)
apart, which is 2.6e-4 of a 3.9 us median (quick-np8, Open MPI's selector). A point simulated
in another slice (another history) moved by 5e-10 and 7.5e-10 s on sim.fast-path's sliced run.
The spread is absolute, so the tie is too (ten steps), with a relative floor for long times
(SimGrid's flow solver works to maxmin/precision 1e-5 of a rate). sim.rerun holds a rerun of
the committed validation to it, tests/sim/check_same_medians.py sliced reruns, and
tests/python/test_sim_validate.py checks the rule.
"""

SURF_PRECISION_S = 1e-9   # SimGrid's surf/precision (its default, which simrun keeps)
TIE_S = 10 * SURF_PRECISION_S
TIE_REL = 1e-4


def tie_width(a, b):
    """How far apart two simulated times of one point may lie and still be the same time."""
    return max(TIE_S, TIE_REL * max(abs(a), abs(b)))


def tied(a, b):
    return abs(a - b) <= tie_width(a, b)


def faster(a, b):
    """Whether simulated time a is faster than b by more than a tie."""
    return a < b - tie_width(a, b)

"""The verdicts, pure: a claim against measured points, and a regenerated simulated set against its
archive.

Against the paper (one claim):
  holds               the measured ratio is on the paper's side of 1 (who is faster) and within
                      the claims file's tolerance factor of the paper's number
  holds in shape      on the paper's side of 1, the ratio off by more than the tolerance (x: the
                      measured ratio over the paper's)
  does not hold       on the other side of 1 (or, for a `slower` claim, the proposed algorithm is
                      not slower), with the reason the caller knows (model validity, scale)
  not measured        the point is not in the data
Against the archive (a deterministic simulated set):
  reproduced          every point of the archive is in the regenerated set, every median a
                      simulated tie of the archived one (collrepro.sim.validation.ties)
  not reproduced      naming the points that differ and by how much, or those missing
  not run             the regenerated set is not there yet
"""

from collrepro.sim.validation import ties

HOLDS, SHAPE, NOT_HOLD, NOT_MEASURED = "holds", "holds in shape", "does not hold", "not measured"
REPRODUCED, NOT_REPRODUCED, NOT_RUN, NOT_COMPARABLE = "reproduced", "not reproduced", "not run", "not comparable"


def claim_verdict(kind, measured, value, tolerance):
    """(verdict, detail) of one claim. measured: T(baseline) / T(proposed) (None: not in the
    data); value: the paper's ratio (None for a `slower` claim)."""
    if measured is None:
        return NOT_MEASURED, "the point is not in the data"
    if kind == "slower":
        return ((HOLDS, f"x{measured:.2f}: the proposed algorithm is slower, as the paper says") if measured < 1
                else (NOT_HOLD, f"x{measured:.2f}: the proposed algorithm is not slower"))
    if (measured > 1) != (value > 1):
        return NOT_HOLD, f"x{measured:.2f} against the paper's x{value:g}: the other algorithm is faster"
    off = measured / value
    if 1 / tolerance <= off <= tolerance:
        return HOLDS, f"x{measured:.2f} against the paper's x{value:g} (within x{tolerance:g})"
    return SHAPE, f"x{measured:.2f} against the paper's x{value:g}: off by x{off:.2f}"


def archive_verdict(archive, regenerated):
    """(verdict, detail, differing) comparing {point key: median} of the archive with those of a
    regenerated deterministic set; differing: [(key, archived, regenerated or None)]."""
    if regenerated is None:
        return NOT_RUN, "no regenerated set yet", []
    differing = [(k, a, regenerated.get(k)) for k, a in sorted(archive.items())
                 if k not in regenerated or not ties.tied(a, regenerated[k])]
    if not differing:
        return REPRODUCED, (f"{len(archive)} points, every median a simulated tie of the archive's "
                            f"({ties.TIE_S:.0e} s or {ties.TIE_REL:.0e} relative)"), []
    missing = sum(1 for _, _, b in differing if b is None)
    worst = max((abs(b / a - 1) for _, a, b in differing if b is not None and a), default=0.0)
    return NOT_REPRODUCED, (f"{len(differing)} of {len(archive)} points differ ({missing} missing; "
                            f"largest difference {worst:.2%})"), differing

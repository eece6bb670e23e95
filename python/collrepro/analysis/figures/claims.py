"""The papers' claims as data (configs/paper/claims.yaml): read and checked, one line per problem."""

import os

from collrepro import paths, safeio
from collrepro.safeio import UserError
from collrepro.analysis.frames.units import parse_bytes

CLAIMS = os.path.join(paths.REPO, "configs", "paper", "claims.yaml")
LIMIT = safeio.MIB
KINDS = {"speedup", "max-speedup", "slower"}
SCALES = {"here", "node16", "cluster", "simulation"}
FIGURE_FIELDS = {"paper", "figure", "what", "paper_scale", "sim", "node16", "small", "family", "scales", "claims",
                 "why_no_claims"}
CLAIM_FIELDS = {"id", "kind", "baseline", "proposed", "collective", "at", "value", "source"}


def load(path=CLAIMS):
    """(tolerance, {figure id: figure}, [not regenerated]) from the claims file; UserError naming
    the field and the fix on anything malformed."""
    doc = safeio.load_yaml_file(path, LIMIT, "the claims file")
    if not isinstance(doc, dict) or not isinstance(doc.get("figures"), dict):
        raise UserError(f"{path}: want a map with `figures:` (figure id -> figure); see its header")
    tolerance = doc.get("tolerance")
    if not isinstance(tolerance, (int, float)) or not 1 < tolerance <= 4:
        raise UserError(f"{path}: tolerance {tolerance!r}: want a factor above 1 and at most 4 (e.g. 1.25)")
    figures = {str(k): _figure(path, str(k), v) for k, v in doc["figures"].items()}
    rest = doc.get("not_regenerated") or []
    if not isinstance(rest, list) or not all(isinstance(r, dict) and {"paper", "figure", "why"} <= set(r) for r in rest):
        raise UserError(f"{path}: not_regenerated: want a list of {{paper, figure, why}}")
    return float(tolerance), figures, rest


def _figure(path, fid, fig):
    where = f"{path}: figures.{fid}"
    if not isinstance(fig, dict):
        raise UserError(f"{where}: want a map of {', '.join(sorted(FIGURE_FIELDS))}")
    unknown = set(map(str, fig)) - FIGURE_FIELDS
    missing = {"paper", "figure", "scales", "claims"} - set(fig)
    if unknown or missing:
        raise UserError(f"{where}: unknown field(s) {sorted(unknown)}, missing {sorted(missing)}")
    if not fig.get("sim") and not fig.get("node16"):
        raise UserError(f"{where}: name what regenerates it: sim (sim-runs.yaml names) or node16 (an experiment)")
    if not set(fig["scales"]) <= SCALES:
        raise UserError(f"{where}.scales: {sorted(set(fig['scales']) - SCALES)}: want some of {sorted(SCALES)}")
    if not isinstance(fig["claims"], list) or (not fig["claims"] and not fig.get("why_no_claims")):
        raise UserError(f"{where}.claims: want a list of claims, or [] with why_no_claims")
    if not isinstance(fig.get("small", []), list):
        raise UserError(f"{where}.small: want a list of small-runs.yaml set names")
    fig = dict(fig, sim=list(fig.get("sim") or []), small=[str(n) for n in fig.get("small") or []])
    fig["claims"] = [_claim(f"{where}.claims[{i}]", c) for i, c in enumerate(fig["claims"])]
    return fig


def _claim(where, c):
    if not isinstance(c, dict):
        raise UserError(f"{where}: want a map of {', '.join(sorted(CLAIM_FIELDS))}")
    unknown = set(map(str, c)) - CLAIM_FIELDS
    if unknown:
        raise UserError(f"{where}: unknown field(s) {sorted(unknown)}")
    if c.get("kind") not in KINDS:
        raise UserError(f"{where}.kind {c.get('kind')!r}: want one of {sorted(KINDS)}")
    for need in ("id", "baseline", "proposed", "source"):
        if not c.get(need):
            raise UserError(f"{where}: missing {need}")
    if c["kind"] != "slower" and not (isinstance(c.get("value"), (int, float)) and c["value"] > 0):
        raise UserError(f"{where}.value {c.get('value')!r}: want the paper's number, a positive ratio")
    if c["kind"] != "max-speedup" and not isinstance(c.get("at"), dict):
        raise UserError(f"{where}.at: want the point, e.g. {{p: 128, q: 128, bytes: 4MiB}}")
    at = dict(c.get("at") or {})
    if "bytes" in at:
        at["bytes"] = parse_bytes(at["bytes"], f"{where}.at.bytes")
    proposed = c["proposed"] if isinstance(c["proposed"], list) else [c["proposed"]]
    return dict(c, at=at, proposed=proposed)

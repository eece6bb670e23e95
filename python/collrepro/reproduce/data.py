"""Result sets read into points for the verdicts: the median over launches of each launch's
median, per point (collective, algorithm, size, group shape or neighbourhood)."""

from pathlib import Path

KEY = ["collective", "msg_bytes", "p", "q", "ka", "kb", "bytes_a", "bytes_b", "distribution", "dist_seed",
       "neighborhood"]


def has_results(directory):
    """Whether a directory holds result summaries (without reading them)."""
    from collrepro import resultfiles
    d = Path(directory)
    return d.is_dir() and bool(resultfiles.result_files(d, ["summary"])["summary"])


def in_progress(directory):
    """Whether a result directory holds a launch or slice still being written (collbench's .tmp
    files: a run stopped halfway, or running now)."""
    from collrepro import contract
    d = Path(directory)
    return d.is_dir() and any(d.glob("*" + contract.TMP_SUFFIX))


def _per_launch(directory, keys, summary_medians=False):
    """(per-launch frame with the keys as text, key columns) of a result directory, None when it
    holds no result. summary_medians: collbench's own per-launch medians (its summary) where
    present, so that a sealed archive (no raw repetitions) and a run with them are read alike."""
    from collrepro.analysis.frames import aggregate as A
    from collrepro.analysis.loading import loader
    d = Path(directory)
    if not has_results(d):
        return None, None
    per = A.per_launch(loader.load([d]))
    if summary_medians:
        per = per.assign(median=per["summary_median"].where(per["summary_median"].notna(), per["median"]))
    per = per[per["median"].notna()]
    cols = [k for k in keys if k in per] + ["algorithm"]
    per = per.assign(**{k: per[k].map(_text) for k in cols if k not in ("msg_bytes", "point")})
    return per, cols


def points(directory):
    """A frame of KEY + algorithm + median_s (the median over launches of the per-launch medians)
    of a result directory; None when it holds no result."""
    per, cols = _per_launch(directory, KEY)
    if per is None:
        return None
    return per.groupby(cols, dropna=False)["median"].median().rename("median_s").reset_index()


def launch_medians(directory):
    """{(plan index, key..., algorithm): {launch: its median}} of a result directory,
    for the equivalence test of a real set; None when it holds no result. The plan index keeps
    apart two settings that give the same point (runs of one config share their plan)."""
    per, cols = _per_launch(directory, ["point"] + KEY, summary_medians=True)
    if per is None:
        return None
    return {k: {int(l): float(v) for l, v in zip(g["launch"], g["median"])} for k, g in per.groupby(cols, dropna=False)}


def point_text(key):
    """A point of launch_medians in a few words: '#3 halfduplex-fc allgather 64 KiB p/q 1/1 1:0'."""
    from collrepro.analysis.frames.units import format_bytes
    f = dict(zip(["point"] + KEY + ["algorithm"], key))
    words = [f"#{f['point']}", f.get("algorithm", "?"), f.get("collective", "")]
    if f.get("msg_bytes") not in (None, ""):
        words.append(format_bytes(int(float(f["msg_bytes"]))))
    if f.get("neighborhood"):
        words.append(f["neighborhood"])
    elif f.get("p"):
        words.append(f"p/q {f['p']}/{f.get('q', '?')}")
        if f.get("ka") and f.get("kb") is not None and f.get("msg_bytes") not in (None, "") and float(f["msg_bytes"]):
            words.append(f"{int(f['ka']) // int(float(f['msg_bytes']))}:{int(f['kb']) // int(float(f['msg_bytes']))}")
    if f.get("distribution") not in (None, "", "equal"):
        words.append(f["distribution"])
    return " ".join(w for w in words if w)


def _text(v):
    """A key's value as text: whole numbers without '.0', missing as ''."""
    import pandas as pd
    if v is None or (not isinstance(v, (list, tuple)) and pd.isna(v)):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def medians_by_key(frame):
    """{(key..., algorithm): median_s} of a points frame, for the archive comparison."""
    cols = [c for c in frame.columns if c != "median_s"]
    return {tuple(r[c] for c in cols): float(r["median_s"]) for _, r in frame.iterrows()}


def _select(frame, claim):
    sel = frame
    at = claim.get("at") or {}
    if claim.get("collective"):
        sel = sel[sel["collective"] == claim["collective"]]
    if "bytes" in at:
        sel = sel[sel["msg_bytes"].astype(int) == int(at["bytes"])]
    for k in ("p", "q"):
        if k in at:
            sel = sel[sel[k] == str(at[k])]
    if "neighborhood" in at:
        sel = sel[sel["neighborhood"] == str(at["neighborhood"])]
    return sel


def ratios(frame, claim):
    """[T(baseline) / T(proposed)] at every point of the frame the claim selects (one per point
    and proposed algorithm that both ran)."""
    sel = _select(frame, claim)
    keys = [c for c in sel.columns if c not in ("algorithm", "median_s")]
    out = []
    for _, g in sel.groupby(keys, dropna=False):
        t = dict(zip(g["algorithm"], g["median_s"]))
        base = t.get(claim["baseline"])
        out += [base / t[p] for p in claim["proposed"] if base and t.get(p)]
    return out


def measured_ratio(frame, claim):
    """The claim's measured ratio: the largest over its points for max-speedup, else the one
    point's (None where the data lacks it)."""
    if frame is None:
        return None
    found = ratios(frame, claim)
    if not found:
        return None
    return max(found) if claim["kind"] == "max-speedup" else found[0]

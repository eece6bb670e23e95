"""Cost-model overlay: fit alpha/beta, draw prediction beside measurement, efficiency."""

import numpy as np
import pandas as pd

from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.figures.models import fit_alpha_beta, fit_pingpong
from collrepro.contract import SHAPE_COLUMNS
from collrepro.analysis.loading.schema import InputError

# One fit per machine/library context: the alpha-beta parameters of a network.
FIT_GROUP = ["mpi_impl", "mpi_version", "nodes", "nprocs", "ppn", "placement"]


def _pingpong_series(metas, impl, version):
    """Pool the pingpong series of all launches of a library (median per size)."""
    points = [s for m in metas if (m.get("mpi_impl"), m.get("mpi_version")) == (impl, version)
              for s in (m.get("pingpong") or [])]
    if not points:
        return []
    frame = pd.DataFrame(points).groupby("bytes", as_index=False)["time_s"].median()
    return frame.to_dict("records")


def fit_parameters(agg, metas, source="model", weight="relative"):
    """alpha, beta per FIT_GROUP, from the measured medians or the pingpong series."""
    rows = []
    for key, sub in agg.groupby(FIT_GROUP, dropna=False):
        if source == "pingpong":
            series = _pingpong_series(metas, key[0], key[1])
            if not series:
                raise InputError(f"no pingpong series in the meta files of {key[0]} {key[1]}")
            alpha, beta, rms = fit_pingpong(series, weight)
            n = len(series)
        else:
            alpha, beta, rms = fit_alpha_beta(sub["cost_alpha_terms"], sub["cost_beta_bytes"],
                                              sub["median"], weight)
            n = int(sub[["cost_alpha_terms", "cost_beta_bytes"]].notna().all(axis=1).sum())
        rows.append(dict(zip(FIT_GROUP, key), alpha_s=alpha, beta_s_per_byte=beta,
                         rms_rel_residual=rms, n_fit=n, source=source))
    fits = pd.DataFrame(rows)
    if fits[["alpha_s", "beta_s_per_byte"]].isna().all(axis=None):
        raise InputError("no point has cost_alpha_terms/cost_beta_bytes to fit alpha and beta")
    return fits


def predictions(agg, fits):
    """Per point: predicted time, model/measured ratio, bound and efficiency."""
    out = agg.merge(fits[FIT_GROUP + ["alpha_s", "beta_s_per_byte"]], on=FIT_GROUP, how="left")
    alpha, beta = out["alpha_s"], out["beta_s_per_byte"]
    out["predicted"] = out["cost_alpha_terms"] * alpha + out["cost_beta_bytes"] * beta
    out["bound"] = out["bound_alpha_terms"] * alpha + out["bound_beta_bytes"] * beta
    out["predicted_over_measured"] = out["predicted"] / out["median"]
    out["efficiency"] = out["bound"] / out["median"]
    return out


def _draw(ax, sub, _key):
    scale = pl.time_scale(ax, pd.concat([sub["max"], sub["predicted"]]))
    pl.draw_lines(ax, sub, "algorithm", scale=scale)
    model = sub.dropna(subset=["predicted"]).drop(columns=["min", "max"])
    pl.draw_lines(ax, model, "algorithm", y="predicted", scale=scale, errors=False,
                  style={"linestyle": "--", "marker": "none", "linewidth": 1.0}, label_suffix=" (model)")
    pl.size_axis(ax, sub["msg_bytes"])
    pl.log_time_axis(ax)


def overlay_figure(pred, metas, fits):
    context = pl.varying_context(pred)
    text = "; ".join(f"alpha={r.alpha_s:.3g} s, beta={r.beta_s_per_byte:.3g} s/B ({r.source})"
                     for r in fits.itertuples())
    return pl.panels_figure(
        "overlay", pred, ["setting"] + context, _draw,
        lambda key, _s: key["setting"] + pl.context_suffix(key, context),
        "Cost-model overlay: measured (solid, min/max bars) vs predicted (dashed)\n" + text,
        pl.footer_text(pred, metas))


EFFICIENCY_COLUMNS = (["setting", "family", "collective", "algorithm", "topology"] + SHAPE_COLUMNS
                      + ["msg_bytes", "mpi_impl", "mpi_version", "nprocs", "placement", "median",
                         "predicted", "predicted_over_measured", "bound", "efficiency", "alpha_s",
                         "beta_s_per_byte"])


def run(agg, metas, outdir, source="model", weight="relative"):
    """Fit, write fit.csv and efficiency.csv, draw overlay.png/pdf; return paths."""
    fits = fit_parameters(agg, metas, source, weight)
    pred = predictions(agg, fits)
    outdir.mkdir(parents=True, exist_ok=True)
    fits.to_csv(outdir / "fit.csv", index=False)
    pred[EFFICIENCY_COLUMNS].to_csv(outdir / "efficiency.csv", index=False)
    fo = overlay_figure(pred, metas, fits)
    pl.save(fo, outdir)
    return [outdir / "fit.csv", outdir / "efficiency.csv"] + fo.paths, fo, fits, pred


def has_cost_model(agg):
    return bool(np.isfinite(agg[["cost_alpha_terms", "cost_beta_bytes"]].to_numpy(float)).all(axis=1).any())

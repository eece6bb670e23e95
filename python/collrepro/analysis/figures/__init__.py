"""Figures: plotting.py (the shared axes, labels and colours), figures.py (the speedup and time
figures of a result set), overlay.py (the papers' analytic models over measured points),
phases.py (the per-phase breakdown), and the papers' reference values and models that the
figures and the simulation compare with (paper_values.py, models.py).
"""

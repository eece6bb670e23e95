"""The tables every analysis room shares: aggregate.py (per-launch statistics and the aggregate
frame of a result set, algorithm kinds), units.py (sizes and times in words), tables.py
(Markdown tables).
"""

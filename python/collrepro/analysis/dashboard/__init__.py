"""The dashboard, a static site over a tree of installations: page.py (the pages), figures.py
(its plotly figures), html.py (its HTML), runs.py (the run listings).
"""

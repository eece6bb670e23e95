"""collrepro analysis: load result directories, aggregate, figures, compare, trend, report.

Entry point: `analysis/analyze <subcommand>` (or `python3 -m collrepro_analysis`).
Data contract: results/CONTRACT.md.
"""

__version__ = "1.0.0"

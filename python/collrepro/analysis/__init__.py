"""collrepro analysis: load result directories, aggregate, figures, compare, trend, report.

Entry point: `analysis/analyze <subcommand>` (or `python3 -m collrepro.analysis` with
python/ on the import path). Data contract: collrepro.contract (results/CONTRACT.md).
"""

__version__ = "1.0.0"

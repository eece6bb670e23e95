"""collrepro analysis: load result directories, aggregate, figures, compare, trend, report.

Entry point: `analysis/analyze <subcommand>` (`collrepro-py analyze`). Data contract: collrepro.contract (results/CONTRACT.md).
"""

__version__ = "1.0.0"

"""collrepro analysis: result directories into tables, verdicts, figures and reports. It imports
nothing that launches programs or knows machines (tests/python/test_import_structure.py).

Rooms, each importing only those above it in this list:
  loading/   reading result directories (schema, integrity, migrate, loader, inventory, errors)
  frames/    the shared tables (aggregate, units, Markdown tables)
  figures/   plots, figures, the papers' models and values
  verdicts/  statistics and verdicts: compare, trend, guidelines
  dashboard/ the static site
and here, on top: cli.py (`collrepro-py analyze`, analysis/analyze), report.py with its sections
arrival.py and callforms.py, tune.py (`collrepro-py tune`, interpose/colltune).
Data contract: collrepro.contract (results/CONTRACT.md).
"""

__version__ = "1.0.0"

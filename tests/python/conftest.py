"""pytest setup for the analysis tests: import path and the Agg backend."""

import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

HERE = Path(__file__).resolve().parent
ANALYSIS = HERE.parent.parent / "analysis"       # <repo>/analysis, relative to this file
for path in (str(ANALYSIS), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

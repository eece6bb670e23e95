"""pytest setup for the Python tools' tests: import path and the Agg backend."""

import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

HERE = Path(__file__).resolve().parent
PYTHON = HERE.parent.parent / "python"       # <repo>/python (package collrepro), relative to this file
for path in (str(PYTHON), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

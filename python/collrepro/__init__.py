"""collrepro's Python tools: the results contract, launching, Slurm arrays, analysis.

A module run as `python3 -m collrepro.X` imports its dependencies before its own error handling
(safeio.main_exit) runs: under a Python that lacks one (numpy, pandas, ...) the import would end
in a traceback. For such a run only (the interpreter sets sys.argv[0] to "-m" while it imports
the package), an uncaught ImportError of a dependency the front door knows is one line
naming the Debian package, exit 5, as `collrepro-py VERB` says it (frontdoor.DEBIAN_PACKAGES).
"""

import os
import re
import sys


def _missing_dependency_hook(previous):
    def hook(kind, value, traceback):
        if not issubclass(kind, ImportError) or os.environ.get("COLLREPRO_DEBUG") == "1":
            return previous(kind, value, traceback)
        from collrepro.frontdoor import DEBIAN_PACKAGES
        # ModuleNotFoundError names the module; pandas re-raises a missing numpy as an ImportError
        # that says "No module named 'numpy'".
        said = re.search(r"No module named '([\w.]+)'", str(value))
        name = (value.name or (said[1] if said else "")).split(".")[0]
        if name not in DEBIAN_PACKAGES:
            return previous(kind, value, traceback)
        prog = os.path.splitext(os.path.basename(sys.argv[0] or "collrepro"))[0]
        sys.stdout.flush()
        sys.stderr.write(f"{prog}: {sys.executable} lacks {name}: apt-get install {DEBIAN_PACKAGES[name]} "
                         "(or run it with an interpreter that has it)\n")
        sys.stderr.flush()
        os._exit(5)  # safeio.EXIT_ENVIRONMENT (safeio is not imported here: it may be what failed)
    return hook


if sys.argv[:1] == ["-m"]:
    sys.excepthook = _missing_dependency_hook(sys.excepthook)

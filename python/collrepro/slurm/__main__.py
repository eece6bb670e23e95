"""`python3 -m collrepro.slurm`: collslurm (the front door's `slurm` verb)."""
import sys

from .cli import run

sys.exit(run())

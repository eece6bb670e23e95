"""collrepro's Python tools: the results contract, launching, Slurm arrays, analysis."""

"""Starting MPI programs on this machine: launcher.py (the launcher command of each MPI, signal
forwarding), runs.py (how a collrun launches collbench: library, executable, environment,
process count), collrun.py (the `run` and `sweep` verbs). The environment a launch needs is
mpienv.py's; where the checkout or installed tree is, paths.py's.
"""

"""Starting MPI programs on this machine: launcher.py (the launcher command of each MPI, signal
forwarding), runs.py (how a collrun launches collbench: library, executable, environment,
process count), job_size.py (--np auto: the process count that fits this machine), collrun.py
(the `run` and `sweep` verbs). The environment a launch needs is
mpienv.py's; where the checkout or installed tree is, paths.py's.
"""

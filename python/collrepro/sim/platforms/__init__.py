"""The simulation's first stage, platforms: SimGrid platform files from measurements and models,
results in and XML out, nothing launched. cori.py (the dragonfly models), node_memory.py (a node's
shared memory), platform.py (a node from its measured ping-pongs, and the fits the emulated
cluster's fidelity check also uses), cluster_platform.py (the emulated cluster's nodes and links).
Imports nothing from running/ or validation/ (tests/python/test_import_structure.py)."""

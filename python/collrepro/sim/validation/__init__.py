"""The simulation's third stage, validation: the simulation judged against real runs. validate.py
(`sim validate`: against a real node), cluster_validate.py (`sim validate-cluster`: against the
emulated cluster), sensitivity.py (`sim sensitivity`: the Cori model's effects one at a time) and
ties.py (when two simulated times are the same). Imports running/ and platforms/."""

"""Simulation in SimGrid SMPI, under one roof: run.py (`sim run`, bench/sim/simrun: an
experiment on a platform), paper.py (`sim paper`: the papers' configurations at full scale),
the platform writers cori.py (`sim cori`: the dragonfly models), node_memory.py
(`sim node-memory`) and platform.py (`sim platform`: a node from its measured ping-pongs), and
the studies of the simulation itself: validate.py (`sim validate`: against real-node runs), cluster_validate.py (`sim
validate-cluster`: against an emulated cluster, its platform from cluster_platform.py) and
sensitivity.py (`sim sensitivity`: the Cori model's effects one at a time).
"""

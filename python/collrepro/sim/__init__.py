"""Simulation in SimGrid SMPI, in three rooms that are layers (each imports only those before it;
tests/python/test_import_structure.py checks it):

  platforms/   platform files from measurements and models: results in, XML out, nothing launched
  running/     simulations and the measurements of this machine they start from
  validation/  the simulation judged against real runs, and its sensitivity studies

The emulated cluster (collrepro.cluster) takes only from platforms/.
"""

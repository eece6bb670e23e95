"""The simulation's second stage, running: run.py (`sim run`, bench/sim/simrun: an experiment on a
platform), paper.py (`sim paper`: the papers' configurations at full scale) and make_platform.py
(`sim platform`: measures this machine where asked, then writes through platforms/). Imports
platforms/, never validation/."""

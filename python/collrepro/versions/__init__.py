"""Versions: one experiment on every MPI installation, interleaved launch by launch, then its
trend, guideline and dashboard pages (run.py, the `versions` verb), and the calibration of the
version verdicts on this machine (calibration.py, `versions calibration`).
"""

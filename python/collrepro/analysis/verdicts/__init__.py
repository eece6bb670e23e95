"""Verdicts: stats.py (medians, intervals, paired tests), verdicts.py (the words of a verdict),
comparability.py (whether two result sets may be compared), compare.py (two sets, point by
point), trend.py (a series of installations, change points), guidelines.py (the performance
guidelines and their mock-ups).
"""

"""Studies built from the other rooms: timing.py (`study timing`, bench/timing-study: the
synchronization-method comparison) and node16.py (`study node16`: the summary tables of the
16-core node runs, results/node16/SUMMARY.md).
"""

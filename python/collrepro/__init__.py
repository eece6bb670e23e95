"""collrepro's Python tools, one package whose folders are rooms on floors: a room imports only
rooms on lower floors (tests/python/test_import_structure.py holds it to that and prints the map).

The base (this folder): safeio (files, exit codes, one-line errors), cliargs, contract (the
results contract, contract.json) and distributions, contract_files (CONTRACT.md and the golden
vectors made from them), resultfiles (the plain and .gz forms of a result file) and compact
(turning one into the other), catalogue (the algorithm snapshot), mpienv (the MPI environment of
every launch and test), paths (checkout or installed tree), design (the calibrated rounds of a
comparison between installations); and the front door (frontdoor,
__main__): every command is one of its verbs, `collrepro-py VERB` (`collrepro-py --help`).

Above it: installations/ (MPI installations), launch/ (starting MPI programs here), slurm/ and
cluster/ (other machines), analysis/ (reading results into tables, verdicts, figures, reports:
it never imports what launches), sim/ (SimGrid), fuzz/ (the differential fuzzer of inter-group collectives), versions/ and
studies/ (experiments built from the others).
"""

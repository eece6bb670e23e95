"""The differential fuzzer for inter-group collectives (`collrepro-py fuzz`): seeded random
intercommunicator Allgather(v) cases (cases.py) run through every installed MPI library's own
call and the project's algorithms behind the PMPI library (run.py), every received byte checked
against a reference computed without MPI (fuzz/intercase.c); failures minimised into small
standalone C reproducers (minimise.py, reproducer.py); runs bounded and resumable (store.py,
cli.py)."""

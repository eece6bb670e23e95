"""MPI installations as inputs: a registry of named installations (the Debian-packaged
libraries, source builds in the per-user cache, and prefixes added by the user), source builds
of other releases, and collbench built against each. The command is bench/collmpi
(`./collrepro mpi ...`); docs/installations.md describes it.
"""

"""Loading result directories: schema.py (the strict reading of each file against the contract),
integrity.py (a directory's files and the integrity records collbench wrote), migrate.py (older
contract versions, in memory or on disk), loader.py (a directory into frames), inventory.py (a
tree of result directories, one entry per installation and experiment), errors.py (InputError).
The forms of a file (plain, .gz) are collrepro.resultfiles'.
"""

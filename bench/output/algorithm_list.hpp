// collbench --list-algorithms: the catalogue, every registered algorithm, without MPI.
//   --format text (default) or csv: the CSV of old. The first six columns are the original ones
//     (scripts that read them keep working); then the source file that registers the algorithm
//     (relative to the repository) and its documentation page.
//   --format json: the machine-readable catalogue {"algorithms": [...]}, one entry per
//     (collective, name) in registry order, with every field the tools derive from it: the CTest
//     lists (tests/mpi/catalogue/, one test per offered call form), docs/algorithms/README.md,
//     the analysis defaults (python/collrepro/catalogue.py).
#pragma once

#include <iosfwd>
#include <string>

namespace collbench {

void list_algorithms(std::ostream& out, const std::string& format = "text");  // text|csv|json

}  // namespace collbench

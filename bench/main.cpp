// collbench: the sweep driver of collrepro. See bench/README.md for the command line, the
// configuration schema, the output files and the exit codes:
//   0 ok, 2 bad configuration or input (before any measurement), 3 validation failure,
//   4 MPI or run-time error (MPI_Abort), 5 a file write or read the system refused (no space,
//   permission; finished points kept), 130 / 143 interrupted by SIGINT / SIGTERM (finished
//   points kept, metadata complete: false).
#include "run/entry.hpp"

int main(int argc, char** argv) { return collbench::collbench_main(argc, argv); }

// collbench's main() (see main.cpp and bench/README.md for the exit codes).
#pragma once

namespace collbench {

// Parses the command line, runs the driver under MPI (or a command without MPI) and
// returns the exit code.
int collbench_main(int argc, char** argv);

}  // namespace collbench

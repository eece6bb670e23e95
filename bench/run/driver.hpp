// The sweep driver: configuration -> plan -> per point (prepare, validate, warm up, time,
// write) -> metadata. Collective over MPI_COMM_WORLD; returns the exit code (0, or 130/143
// after an interrupt) and throws ConfigError / ValidationError identically on every rank.
#pragma once

#include "run/cli.hpp"
#include "base/interrupt.hpp"

namespace collbench {

int run_driver(const Options& options, InterruptWatch& watch);

// Without MPI: the text of a configuration file (--get reads it too).
std::string read_file(const std::string& path);  // throws ConfigError

}  // namespace collbench

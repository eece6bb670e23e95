// The sweep driver: configuration -> plan -> per point (prepare, validate, warm up, time,
// write) -> metadata. Collective over MPI_COMM_WORLD; returns the exit code (0, or 130/143
// after an interrupt) and throws ConfigError / ValidationError identically on every rank.
#pragma once

#include "run/cli.hpp"
#include "run/interrupt.hpp"

namespace collbench {

int run_driver(const Options& options, InterruptWatch& watch);

// Without MPI: the registered algorithms (--list-algorithms) and a config value (--get).
void list_algorithms(std::ostream& out, const std::string& format = "text");  // text|csv|json
std::string read_file(const std::string& path);  // throws ConfigError

}  // namespace collbench

// Error kinds of collbench and the exit codes they map to (documented in bench/README.md).
//
// Inside the driver every failure is an exception; main() turns it into one message and
// one exit code. Errors that every rank detects identically (configuration, plan) exit
// cleanly on all ranks; errors on a subset of ranks end with MPI_Abort.
#pragma once

#include <stdexcept>
#include <string>

namespace collbench {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 2,        // bad configuration, command line or input, before any measurement
  kExitValidation = 3,   // an algorithm produced a wrong result
  kExitRuntime = 4,      // MPI or other run-time error
  kExitSigint = 130,     // interrupted by SIGINT (finished points kept)
  kExitSigterm = 143,    // interrupted by SIGTERM (finished points kept)
};

// A problem with the configuration or the command line: "config error: <field> ...".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An algorithm's result differs from the expected or the native result.
class ValidationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by config parsing helpers: `field` names the config path ("timing.reps",
// "groups.ratios[1]"), `problem` says what is wrong and how to fix it.
inline ConfigError config_error(const std::string& field, const std::string& problem) {
  return ConfigError("config error: " + field + " " + problem);
}

}  // namespace collbench

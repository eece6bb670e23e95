// Error kinds of collbench and the exit codes they map to (documented in bench/README.md).
//
// Inside the driver every failure is an exception; main() turns it into one message and
// one exit code. Errors that every rank holds (configuration, plan, and rank 0's failures
// inside on_root(), broadcast to every rank) are printed once, by rank 0, and every rank exits
// cleanly with the code; errors on a subset of ranks are printed by the rank that hit them, as
// one line written by one write(2), and end with MPI_Abort (whose code Open MPI's mpirun and
// MPICH's mpiexec both return).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collbench {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 2,        // bad configuration, command line or input, before any measurement
  kExitValidation = 3,   // an algorithm produced a wrong result
  kExitRuntime = 4,      // MPI or other run-time error
  kExitEnvironment = 5,  // the system refused: a file could not be written or read (no space, permission)
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

// The system refused a file operation: "cannot write D/raw-L0.csv.tmp: No space left on device
// (free space and re-run: finished points are kept)". Exit code kExitEnvironment.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error that every rank holds with the same text and exit code (rank 0's failure inside
// on_root(), broadcast): rank 0 prints it once and every rank returns `code`, no MPI_Abort.
class SharedError : public std::runtime_error {
 public:
  SharedError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Thrown by config parsing helpers: `field` names the config path ("timing.reps",
// "groups.ratios[1]"), `problem` says what is wrong and how to fix it.
inline ConfigError config_error(const std::string& field, const std::string& problem) {
  return ConfigError("config error: " + field + " " + problem);
}

// What to do about errno `err` after a failed write or read of collbench's result files
// ("free space and re-run: finished points are kept").
std::string io_fix(int err);

// "cannot <action> <path>: <strerror(err)> (<fix>)"; the fix defaults to io_fix(err).
IoError io_error(const std::string& action, const std::string& path, int err, const std::string& fix = "");

// Input quoted in a message: at most `limit` characters (UTF-8 code points) of `text` on one
// line: control characters written as \n, \t, \xNN; a longer text is cut and ends in "...".
inline constexpr std::size_t kExcerptChars = 60;
std::string excerpt(std::string_view text, std::size_t limit = kExcerptChars);
// excerpt(text) in double quotes: "\"" + excerpt(text) + "\"".
std::string quote(std::string_view text);

// A whole message made safe to print as one line: control characters escaped, and at most
// `limit` bytes (a backstop for messages that quote some input whole).
inline constexpr std::size_t kMessageBytes = 2000;
std::string one_line(std::string_view message, std::size_t limit = kMessageBytes);

}  // namespace collbench

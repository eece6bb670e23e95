// What the MPI checkers (inter_check, iso_check) share: main() around MPI_Init/Finalize, the
// walk over their command line, and the closing summary. Each checker supplies run(argv), its
// options and its own case loop, over the algorithms one launch checks.
#pragma once

#include <mpi.h>

#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "collrepro/registry.hpp"

namespace collrepro::checker {

// Calls on_flag(flag, value) for every argument; value() returns the argument after the flag
// (or throws naming the flag). on_flag returns false for a flag it does not know.
template <class OnFlag>
void parse_flags(int argc, char** argv, OnFlag on_flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    if (!on_flag(flag, value)) throw std::invalid_argument("unknown argument " + flag);
  }
}

// The algorithms of --algorithm NAME[,NAME...]: one launch checks them all.
inline std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) out.push_back(name);
  if (out.empty()) throw std::invalid_argument("--algorithm takes NAME[,NAME...], got '" + text + "'");
  return out;
}

// Rank 0 prints "<header>: <skipped> <unit> skipped as unsupported", `none_ran` when no case
// ran, and the counts. The exit code is 1 when a case failed or none ran.
inline int summarize(int world_rank, const std::string& header, int skipped, const char* unit,
                     const char* none_ran, int passed, int failed) {
  if (world_rank == 0) {
    std::cout << header << ": " << skipped << " " << unit << " skipped as unsupported\n";
    if (passed + failed == 0) std::cout << none_ran << "\n";
    std::cout << passed << " passed, " << failed << " failed\n";
  }
  return failed > 0 || passed == 0 ? 1 : 0;
}

// One algorithm of a launch and its count of cases.
template <class Algorithm>
struct Tested {
  const Algorithm* algo;
  std::string name;
  int passed = 0, failed = 0, skipped = 0;
};

// The named algorithms (`find(name)` looks one up) that offer the call form on this library;
// rank 0 names the others with the reason: a recorded finding, not a pass.
template <class Algorithm, class Find>
std::vector<Tested<Algorithm>> offering(const std::vector<std::string>& names, const std::string& collective,
                                        CallForm call, const Capabilities& caps, int world_rank, Find find) {
  std::vector<Tested<Algorithm>> out;
  for (const auto& name : names) {
    const Algorithm& algo = find(name);
    if (const Support form = algo.supports_call(call, caps); form) out.push_back({&algo, name});
    else if (world_rank == 0)
      std::cout << collective << "/" << name << " " << to_string(call) << ": skipped: " << form.reason << "\n";
  }
  return out;
}

// Rank 0 prints a line per algorithm, "<prefix><name><suffix>: P <unit> passed, F failed, S
// skipped as unsupported" (and `none_ran` when none of its cases ran), then the launch's closing
// line, which counts algorithms. The exit code is 1 when an algorithm failed a case or ran none.
template <class Algorithm>
int summarize_algorithms(int world_rank, const std::string& prefix, const std::string& suffix,
                         const std::vector<Tested<Algorithm>>& tested, const char* unit, const char* none_ran) {
  int rc = 0, passed = 0, failed = 0;
  for (const auto& t : tested) {
    const bool ok = t.failed == 0 && t.passed > 0;
    (ok ? passed : failed) += 1;
    if (!ok) rc = 1;
    if (world_rank != 0) continue;
    std::cout << prefix << t.name << suffix << ": " << t.passed << " " << unit << " passed, " << t.failed
              << " failed, " << t.skipped << " skipped as unsupported\n";
    if (t.passed + t.failed == 0) std::cout << prefix << t.name << suffix << ": " << none_ran << "\n";
  }
  if (world_rank == 0) std::cout << passed << " passed, " << failed << " failed\n";
  return rc;
}

// main() of a checker: errors outside the cases abort the job with exit code 2.
template <class Run>
int checker_main(const char* name, int argc, char** argv, Run run) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = 1;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return rc;
}

}  // namespace collrepro::checker

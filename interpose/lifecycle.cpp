// MPI_Init / MPI_Init_thread read the settings (settings.hpp); a malformed setting is reported
// in one line by world rank 0 and leaves every call native (a malformed COLLREPRO_PMPI_DELAY
// ends the job instead, exit code 2: an undelayed run must not pass for a delayed one).
// The rules file is read once per job: world rank 0 reads it (size-checked) and broadcasts what it read with PMPI_Bcast on
// MPI_COMM_WORLD, and every rank parses that text, so all ranks agree. MPI_Finalize writes the
// report when asked and frees every plan before the MPI library finalizes.
// MPI_Finalize also completes and frees the requests the library still owns (requests.hpp).
// Three C functions let programs and tests look inside: collrepro_pmpi_live_plans(),
// collrepro_pmpi_live_contexts() and collrepro_pmpi_owned_requests().
#include <cstdio>
#include <cstdlib>

#include "context.hpp"
#include "intercept.hpp"
#include "requests.hpp"
#include "served.hpp"

namespace collrepro::pmpi {
namespace {

// World rank 0's RulesFile on every rank: a header (state, length) and then the bytes. Every
// rank takes part whatever its own environment says, so no rank waits for a broadcast that
// another skips.
RulesFile shared_rules_file(int rank) {
  RulesFile f = rank == 0 ? read_rules_file() : RulesFile{};
  if (rank != 0) {
    const char* path = std::getenv("COLLREPRO_PMPI_RULES");
    f.path = path ? path : "";
  }
  unsigned long long header[2] = {static_cast<unsigned long long>(f.state), f.text.size()};
  if (PMPI_Bcast(header, 2, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
      header[0] > static_cast<unsigned long long>(RulesFile::State::Failed) || header[1] > kMaxRulesBytes + 4096)
    return {RulesFile::State::Failed, f.path, "world rank 0 could not share the rules file (PMPI_Bcast failed)"};
  f.state = static_cast<RulesFile::State>(header[0]);
  f.text.resize(header[1]);
  if (header[1] > 0 &&
      PMPI_Bcast(f.text.data(), static_cast<int>(header[1]), MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    return {RulesFile::State::Failed, f.path, "world rank 0 could not share the rules file (PMPI_Bcast failed)"};
  return f;
}

int after_init(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Settings s = settings_from_environment(shared_rules_file(rank));
  try {
    s.caps = probe_capabilities(MPI_COMM_WORLD);
  } catch (const std::exception& e) {  // keep the defaults: a failed probe must not fail MPI_Init
    s.caps.reason = std::string("capability probe failed: ") + e.what();
  }
  if (!s.delay_error.empty()) {  // a synthetic release that is not slowed must not pass for one
    if (rank == 0) {
      std::fprintf(stderr, "collrepro-pmpi: %s\n", s.delay_error.c_str());
      std::fflush(stderr);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Finalize();
    std::_Exit(2);
  }
  if (!s.error.empty() && rank == 0)
    std::fprintf(stderr, "collrepro-pmpi: %s; every call goes to the MPI library\n", s.error.c_str());
  install_settings(std::move(s));
  return rc;
}

}  // namespace
}  // namespace collrepro::pmpi

using namespace collrepro::pmpi;

extern "C" {

int MPI_Init(int* argc, char*** argv) { return after_init(PMPI_Init(argc, argv)); }

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return after_init(PMPI_Init_thread(argc, argv, required, provided));
}

int MPI_Finalize(void) {
  {
    Entered inside;
    release_requests();
    if (!settings().report.empty()) write_report(settings().report, settings().error);
    release_contexts();
  }
  return PMPI_Finalize();
}

long collrepro_pmpi_live_plans(void) { return live_plans().load(); }
long collrepro_pmpi_live_contexts(void) { return live_contexts(); }
long collrepro_pmpi_owned_requests(void) { return owned_requests(); }

}

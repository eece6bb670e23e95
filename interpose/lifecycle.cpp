// MPI_Init / MPI_Init_thread read the settings (settings.hpp); a malformed setting is reported
// in one line by world rank 0 and leaves every call native. MPI_Finalize writes the report
// when asked and frees every plan before the MPI library finalizes.
// Two C functions let programs and tests look inside: collrepro_pmpi_live_plans() and
// collrepro_pmpi_live_contexts().
#include <cstdio>

#include "context.hpp"
#include "intercept.hpp"
#include "served.hpp"

namespace collrepro::pmpi {
namespace {

int after_init(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  Settings s = settings_from_environment();
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
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
    if (!settings().report.empty()) write_report(settings().report);
    release_contexts();
  }
  return PMPI_Finalize();
}

long collrepro_pmpi_live_plans(void) { return live_plans().load(); }
long collrepro_pmpi_live_contexts(void) { return live_contexts(); }

}

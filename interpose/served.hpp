// How many calls each algorithm served in this process, and the report COLLREPRO_PMPI_REPORT
// asks for at MPI_Finalize: the counts summed over MPI_COMM_WORLD, one line per (collective,
// algorithm) that served a call, written by world rank 0:
//   collrepro-pmpi: served allgather fullduplex-allgather 1234
//   collrepro-pmpi: served neighbor-alltoall native 10
// then the same counts of the calls made in another form than blocking (a nonblocking call,
// a persistent init: where the choice is made), and the starts of the persistent requests an
// algorithm serves (requests.hpp):
//   collrepro-pmpi: served-call persistent allgather halfduplex-fc 2
//   collrepro-pmpi: started allgather halfduplex-fc 10
// and, in delay mode (delay.hpp), the calls world rank 0 delayed per call and size, with the
// seconds those calls took in the MPI library and the seconds it then waited:
//   collrepro-pmpi: delayed allgather 1048576 205 0.0412 0.0209
#pragma once

#include <cstddef>
#include <string>

#include "collrepro/registry.hpp"
#include "delay.hpp"

namespace collrepro::pmpi {

// nullptr: the native call. A persistent call counts at its init (MPI_Allgather_init).
void count_served(Collective c, const Algorithm* algorithm, CallForm form = CallForm::Blocking);

// One MPI_Start of a persistent request that `algorithm` serves.
void count_started(Collective c, const Algorithm* algorithm);

// One call that delay mode slowed: its call, the size its rule matched, the seconds the MPI
// library's call took and the seconds waited after it.
void count_delayed(DelayCall c, std::size_t bytes, double call_s, double waited_s);

// Collective over MPI_COMM_WORLD (before PMPI_Finalize). `where` is "-" (stderr) or a file.
// `refused`: why the settings were refused at MPI_Init (Settings::error), "" when they were not;
// the report then opens with that, so that an empty count list is not read as "nothing called":
//   collrepro-pmpi: report: the settings were refused (COLLREPRO_PMPI_RULES: ...); every call went to the MPI library
void write_report(const std::string& where, const std::string& refused = "");

}  // namespace collrepro::pmpi

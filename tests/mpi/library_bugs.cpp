// library_bugs: reproduces or rules out, on the installed MPI library, the known library bugs
// that the project's nonblocking and persistent calls could meet (issue 37), and checks that the
// capability probe (collrepro/capabilities.hpp) keeps the project's schedules off every path
// found broken. Each finding is printed as one line, "reproduced" or "not reproduced".
//
//   persistent-gather     a persistent Gather / Gatherv that reads the send buffer at init
//                         rather than at each start (pmodels/mpich#7078): three starts, new send
//                         contents before each; root-gathering's and gather-bcast's persistent
//                         calls start persistent Gathervs where intra_persistent holds, the
//                         intra family's native its MPI_Gather_init where intra_native_persistent
//                         holds.
//   persistent-allgather  MPI_Allgather_init, not in place, small blocks on power-of-two
//                         communicators, where MPICH's default schedule is recursive doubling
//                         (pmodels/mpich#6423); in place as the probe and halfduplex-fc use it.
//   inter-nonblocking     MPI_Iallgather / MPI_Iallgatherv on an intercommunicator between the
//                         world's halves, blocks from 4 bytes to 256 KiB (eager and rendezvous),
//                         each started and waited for in turn (open-mpi/ompi#10318,
//                         pmodels/mpich#2284 report hangs): a hang is the test's timeout.
// Each is run on the world and on its blocks of 2 and 4 ranks (the libraries choose schedules
// by communicator size). Exit 1 when a reproduced bug is on a path the probe leaves enabled.
#include <mpi.h>

#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "check_main.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/persistent.hpp"

using namespace collrepro;

namespace {

constexpr int kStarts = 3;
constexpr int kRoundStep = 1000;

int value(int rank, int round, int i = 0) { return rank + kRoundStep * round + 100000 * i; }

// Starts `request` kStarts times: set(round) before each, check(round) after ("" when right).
// Returns the first error; every rank runs every start.
template <class Set, class Check>
std::string starts(MPI_Request& request, Set set, Check check) {
  std::string error;
  for (int round = 0; round < kStarts; ++round) {
    set(round);
    collrepro::check(MPI_Start(&request), "MPI_Start");
    collrepro::check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    if (error.empty()) error = check(round);
  }
  MPI_Request_free(&request);
  return error;
}

std::string expect_all(const std::vector<int>& got, int n, int round, const std::string& what) {
  for (int j = 0; j < n; ++j)
    if (got[static_cast<std::size_t>(j)] != value(j, round)) {
      const bool stale = round > 0 && got[static_cast<std::size_t>(j)] == value(j, 0);
      return what + ": start " + std::to_string(round + 1) + " delivered " +
             std::to_string(got[static_cast<std::size_t>(j)]) + " from rank " + std::to_string(j) +
             (stale ? " (the send contents at init)" : "");
    }
  return "";
}

// persistent-gather on `comm`: Gather and Gatherv of one int per rank at root 0.
std::string persistent_gather(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = 0;
  std::vector<int> got(static_cast<std::size_t>(size), -1), counts(got.size(), 1), displs(got.size());
  std::iota(displs.begin(), displs.end(), 0);
  const auto set = [&](int round) {
    mine = value(rank, round);
    std::fill(got.begin(), got.end(), -1);
  };
  const auto at_root = [&](const std::string& what) {
    return [&, what](int round) { return rank == 0 ? expect_all(got, size, round, what) : std::string(); };
  };
  MPI_Request request = MPI_REQUEST_NULL;
  check(gather_init(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, 0, comm, &request), "gather_init");
  std::string error = starts(request, set, at_root("persistent Gather"));
  check(gatherv_init(&mine, 1, MPI_INT, got.data(), counts.data(), displs.data(), MPI_INT, 0, comm, &request),
        "gatherv_init");
  const std::string v = starts(request, set, at_root("persistent Gatherv"));
  return error.empty() ? v : error;
}

// persistent-allgather on `comm`: one int per rank, into a separate buffer and in place.
std::string persistent_allgather(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = 0;
  std::vector<int> got(static_cast<std::size_t>(size), -1);
  const auto check_all = [&](const std::string& what) {
    return [&, what](int round) { return expect_all(got, size, round, what); };
  };
  MPI_Request request = MPI_REQUEST_NULL;
  check(allgather_init(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, comm, &request), "allgather_init");
  std::string error = starts(
      request,
      [&](int round) {
        mine = value(rank, round);
        std::fill(got.begin(), got.end(), -1);
      },
      check_all("persistent Allgather"));
  check(allgather_init(MPI_IN_PLACE, 0, MPI_BYTE, got.data(), 1, MPI_INT, comm, &request), "allgather_init (in place)");
  const std::string in_place = starts(
      request,
      [&](int round) {
        std::fill(got.begin(), got.end(), -1);
        got[static_cast<std::size_t>(rank)] = value(rank, round);
      },
      check_all("persistent Allgather in place"));
  return error.empty() ? in_place : error;
}

// inter-nonblocking on the intercommunicator of the world's halves.
std::string inter_nonblocking(MPI_Comm world) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const int half = size / 2, side = rank < half ? 0 : 1;
  const Comm local = Comm::split(world, side, rank);
  MPI_Comm inter = MPI_COMM_NULL;
  check(MPI_Intercomm_create(local.get(), 0, world, side == 0 ? half : 0, 0x4cab, &inter), "MPI_Intercomm_create");
  const Comm owned(inter);
  int remote = 0, me = 0;
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm_rank(inter, &me);
  for (int ints = 1; ints <= 65536; ints *= 16) {
    std::vector<int> send(static_cast<std::size_t>(ints)), got(static_cast<std::size_t>(ints * remote), -1);
    std::vector<int> counts(static_cast<std::size_t>(remote), ints), displs(counts.size());
    for (int j = 0; j < remote; ++j) displs[static_cast<std::size_t>(j)] = j * ints;
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < ints; ++i) send[static_cast<std::size_t>(i)] = value(me, round, i % 7);
      MPI_Request request = MPI_REQUEST_NULL;
      const bool v = round == 1;
      check(v ? MPI_Iallgatherv(send.data(), ints, MPI_INT, got.data(), counts.data(), displs.data(), MPI_INT, inter,
                                &request)
              : MPI_Iallgather(send.data(), ints, MPI_INT, got.data(), ints, MPI_INT, inter, &request),
            v ? "MPI_Iallgatherv" : "MPI_Iallgather");
      check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
      for (int j = 0; j < remote; ++j)
        for (int i = 0; i < ints; ++i)
          if (got[static_cast<std::size_t>(j * ints + i)] != value(j, round, i % 7))
            return std::string(v ? "MPI_Iallgatherv" : "MPI_Iallgather") + " on an intercommunicator, " +
                   std::to_string(ints * 4) + "-byte blocks: wrong data from remote rank " + std::to_string(j);
    }
  }
  return "";
}

// `probe` on the world and on its blocks of 2 and 4 ranks; the first error on any rank of the
// world (the same text is not needed on every rank: any rank's finding counts).
template <class Probe>
std::string everywhere(MPI_Comm world, Probe probe) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  std::string error = probe(world);
  for (int block : {2, 4}) {
    if (block >= size) continue;
    const Comm part = Comm::split(world, rank / block, rank);
    const std::string found = probe(part.get());
    if (error.empty() && !found.empty()) error = found + " (on " + std::to_string(part.size()) + " ranks)";
  }
  int bad = error.empty() ? 0 : 1, any = 0;
  check(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, world), "MPI_Allreduce");
  if (any && error.empty()) error = "on another rank";
  return error;
}

int run(int, char**) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) throw std::invalid_argument("library_bugs needs at least 2 processes");
  const Capabilities caps = probe_capabilities(MPI_COMM_WORLD);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  struct Finding {
    std::string name, error;
    bool workaround;  // the probe keeps the project's schedules off this path
    std::string path;
  };
  std::vector<Finding> findings;
  const bool persistent = *persistent_collectives() != '\0';
  if (persistent) {
    // Both kinds of path: the project's schedules' persistent sub-collectives, and the intra
    // family's native persistent calls on the world.
    const bool both_off = !caps.intra_persistent && !caps.intra_native_persistent;
    findings.push_back({"persistent-gather", everywhere(MPI_COMM_WORLD, persistent_gather), both_off,
                        "root-gathering's and gather-bcast's persistent Gatherv (intra_persistent) or the intra "
                        "native persistent Gather (intra_native_persistent)"});
    findings.push_back({"persistent-allgather", everywhere(MPI_COMM_WORLD, persistent_allgather), both_off,
                        "the persistent sub-collectives (intra_persistent) or the intra native persistent Allgather "
                        "(intra_native_persistent)"});
  }
  findings.push_back({"inter-nonblocking", inter_nonblocking(MPI_COMM_WORLD), !caps.inter_nonblocking,
                      "native's nonblocking call (inter_nonblocking)"});
  int failed = 0;
  if (rank == 0 && !persistent) std::cout << "persistent-*: not tried: no persistent collectives in this build\n";
  for (const Finding& f : findings) {
    const bool uncovered = !f.error.empty() && !f.workaround;
    failed += uncovered ? 1 : 0;
    if (rank == 0)
      std::cout << f.name << ": " << (f.error.empty() ? "not reproduced" : "reproduced: " + f.error)
                << (uncovered ? "; FAIL: the capability probe leaves " + f.path + " enabled" : "") << "\n";
  }
  return checker::summarize(rank, "library_bugs (" + std::to_string(size) + " processes)", 0, "checks", "",
                            static_cast<int>(findings.size()) - failed, failed);
}

}  // namespace

int main(int argc, char** argv) { return checker::checker_main("library_bugs", argc, argv, run); }

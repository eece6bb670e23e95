#include "collrepro/mpi.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#include "collrepro/capabilities.hpp"
#include "collrepro/persistent.hpp"
#include "collrepro/words.hpp"

namespace collrepro {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw MpiError(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(len)));
}

int mpi_count(std::size_t bytes, const char* what) {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw MpiError(std::string(what) + ": " + std::to_string(bytes) +
                   " bytes exceed the int count of one MPI call (2 GiB - 1)");
  return static_cast<int>(bytes);
}

MPI_Datatype word_type(std::size_t word) {
  switch (word) {
    case 1: return MPI_BYTE;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    case 8: return MPI_UINT64_T;
    default: throw MpiError("word_type: no MPI type for a word of " + std::to_string(word) + " bytes");
  }
}

int mpi_words(std::size_t bytes, std::size_t word, const char* what) {
  if (const auto n = word_count(bytes, word)) return *n;
  throw MpiError(std::string(what) + ": " + std::to_string(bytes) + " bytes are not a count of " +
                 std::to_string(word) + "-byte words within the int of one MPI call");
}

Comm Comm::dup(MPI_Comm c) {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_dup(c, &out), "MPI_Comm_dup");
  return Comm(out);
}

Comm Comm::split(MPI_Comm c, int color, int key) {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_split(c, color, key, &out), "MPI_Comm_split");
  return Comm(out);
}

int Comm::rank() const {
  int r = -1;
  check(MPI_Comm_rank(comm_, &r), "MPI_Comm_rank");
  return r;
}

int Comm::size() const {
  int s = 0;
  check(MPI_Comm_size(comm_, &s), "MPI_Comm_size");
  return s;
}

void Comm::reset() {
  if (comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  comm_ = MPI_COMM_NULL;
}

Datatype Datatype::commit(MPI_Datatype t) {
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return Datatype(t);
}

void Datatype::reset() {
  if (type_ != MPI_DATATYPE_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Type_free(&type_);
  }
  type_ = MPI_DATATYPE_NULL;
}

Requests::~Requests() {
  if (!reqs_.empty()) MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
}

void Requests::isend(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  check(MPI_Isend(buf, mpi_count(bytes, "MPI_Isend"), MPI_BYTE, dest, tag, comm, add()), "MPI_Isend");
}

void Requests::irecv(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm) {
  check(MPI_Irecv(buf, mpi_count(bytes, "MPI_Irecv"), MPI_BYTE, src, tag, comm, add()), "MPI_Irecv");
}

void Requests::wait_all() {
  if (reqs_.empty()) return;
  const bool one = reqs_.size() == 1;  // as PersistentRequests
  const int rc = one ? MPI_Wait(reqs_.data(), MPI_STATUS_IGNORE)
                     : MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
  reqs_.clear();
  check(rc, one ? "MPI_Wait" : "MPI_Waitall");
}

}  // namespace collrepro

namespace collrepro {

namespace {

std::string library_identity() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  check(MPI_Get_library_version(text, &len), "MPI_Get_library_version");
  return std::string(text, static_cast<std::size_t>(len));
}

// Every rank's answer ANDed: a capability counts only where every rank has it.
bool on_every_rank(bool mine, MPI_Comm world) {
  int all = mine ? 1 : 0;
  check(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, world), "MPI_Allreduce");
  return all != 0;
}

// The native call forms on `inter`, the intercommunicator of the world's halves (under
// MPI_ERRORS_RETURN): every rank sends its world rank plus 1000 * round and must receive the
// remote half's, remote ranks [first, first + n). "" when right, else what failed.
constexpr int kRoundStep = 1000;

std::string check_received(const std::vector<int>& got, int first, int round, const std::string& call) {
  for (std::size_t j = 0; j < got.size(); ++j) {
    const int want = first + static_cast<int>(j) + kRoundStep * round;
    if (got[j] == want) continue;
    const bool stale = round > 0 && got[j] == want - kRoundStep;
    return call + " gave a wrong result at start " + std::to_string(round + 1) +
           (stale ? " (the data of the start before: a copy kept from an earlier start)" : "");
  }
  return "";
}

std::string try_inter_nonblocking(MPI_Comm inter, int rank, int first, int n) {
  int mine = rank;
  std::vector<int> got(static_cast<std::size_t>(n), -1);
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Iallgather(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, inter, &request) != MPI_SUCCESS)
    return "MPI_Iallgather failed";
  if (MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS) return "MPI_Wait (MPI_Iallgather) failed";
  return check_received(got, first, 0, "MPI_Iallgather");
}

// Starts `request` twice; before each, `set(round)` writes that start's data and afterwards
// `check(round)` says what is wrong ("" when right): the first finding. Both starts happen
// whatever this rank found (another rank may have found nothing and start again). Frees the
// request.
template <class Set, class Check>
std::string start_twice(MPI_Request& request, const std::string& call, Set set, Check check) {
  std::string error;
  for (int round = 0; round < 2; ++round) {  // the second start sees new data
    set(round);
    std::string found = MPI_Start(&request) != MPI_SUCCESS || MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS
                            ? call + ": MPI_Start or MPI_Wait failed"
                            : check(round);
    if (error.empty()) error = std::move(found);
  }
  MPI_Request_free(&request);
  return error;
}

std::string no_persistent_collectives() { return "no MPI_Allgather_init in this build (MPI-4, or MPIX_ in mpi-ext.h)"; }

std::string try_inter_persistent(MPI_Comm inter, int rank, int first, int n) {
  if (!*persistent_collectives()) return no_persistent_collectives();
  int mine = rank;
  std::vector<int> got(static_cast<std::size_t>(n), -1);
  MPI_Request request = MPI_REQUEST_NULL;
  const std::string call = std::string(persistent_collectives()) + " (intercommunicator)";
  if (allgather_init(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, inter, &request) != MPI_SUCCESS) return call + " failed";
  return start_twice(
      request, call, [&](int round) { mine = rank + kRoundStep * round; },
      [&](int round) { return check_received(got, first, round, call); });
}

// The persistent collectives that the project's persistent schedules start on their
// sub-communicators, probed on `world` (an intracommunicator), in place: Allgather,
// Allgatherv and Bcast, each started twice with new data. "" when all are right.
std::string try_intra_persistent_on(MPI_Comm world, int rank, int size) {
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  std::vector<int> all(static_cast<std::size_t>(size), -1), counts(static_cast<std::size_t>(size), 1), displs(counts);
  for (int j = 0; j < size; ++j) displs[static_cast<std::size_t>(j)] = j;
  const auto set_all = [&](int round) {
    std::fill(all.begin(), all.end(), -1);
    all[static_cast<std::size_t>(rank)] = rank + kRoundStep * round;
  };
  const auto check_all = [&](const std::string& call) {
    return [&, call](int round) { return check_received(all, 0, round, call); };
  };
  // Every rank makes all three (the first finding is kept): a rank that stopped at its own
  // finding would leave the others waiting in the next collective.
  std::string error;
  const auto keep = [&error](std::string found) {
    if (error.empty()) error = std::move(found);
  };
  MPI_Request request = MPI_REQUEST_NULL;
  if (allgather_init(MPI_IN_PLACE, 0, MPI_BYTE, all.data(), 1, MPI_INT, world, &request) != MPI_SUCCESS)
    keep("persistent Allgather (in place) failed");
  else
    keep(start_twice(request, "persistent Allgather (in place, intracommunicator)", set_all,
                     check_all("persistent Allgather (in place, intracommunicator)")));
  if (allgatherv_init(MPI_IN_PLACE, 0, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_INT, world,
                      &request) != MPI_SUCCESS)
    keep("persistent Allgatherv (in place) failed");
  else
    keep(start_twice(request, "persistent Allgatherv (in place, intracommunicator)", set_all,
                     check_all("persistent Allgatherv (in place, intracommunicator)")));
  int value = -1;
  if (bcast_init(&value, 1, MPI_INT, 0, world, &request) != MPI_SUCCESS)
    keep("persistent Bcast failed");
  else
    keep(start_twice(
        request, "persistent Bcast", [&](int round) { value = rank == 0 ? 7 + kRoundStep * round : -1; },
        [&](int round) {
          return value == 7 + kRoundStep * round ? std::string()
                                                 : "persistent Bcast gave a wrong result at start " + std::to_string(round + 1);
        }));
  MPI_Comm_set_errhandler(world, MPI_ERRORS_ARE_FATAL);
  return error;
}

// try_intra_persistent_on the world and on its blocks of 2, 4, 8, ... ranks: a library may
// choose another schedule per communicator size (MPICH 4.0.2's persistent in-place Allgather
// fails at the second start on 2 ranks, and passes on 3 and 5). The first failure found.
std::string try_intra_persistent(MPI_Comm world, int rank, int size) {
  if (!*persistent_collectives()) return no_persistent_collectives();
  std::string error = try_intra_persistent_on(world, rank, size);
  for (int block = 2; block < size; block *= 2) {
    Comm part = Comm::split(world, rank / block, rank);
    const std::string found = try_intra_persistent_on(part.get(), part.rank(), part.size());
    if (error.empty() && !found.empty()) error = found + " (on " + std::to_string(part.size()) + " ranks)";
  }
  return error;
}

// The intra family's natives, one collective at a time on `world` (under MPI_ERRORS_RETURN):
// each rank's block is one int, rank + kRoundStep * round; the Gather and the Bcast have root 0.
// `post(collective, probe, request)` makes the request of one collective (an I-call, started at
// once, or a persistent init, started by start_twice). "" when all four are right.
enum class IntraCall { Allgather, Allgatherv, Gather, Bcast };

struct IntraProbe {
  int rank;
  int mine = 0;
  std::vector<int> all, counts, displs;

  IntraProbe(int r, int n)
      : rank(r), all(static_cast<std::size_t>(n), -1), counts(static_cast<std::size_t>(n), 1),
        displs(static_cast<std::size_t>(n)) {
    for (int j = 0; j < n; ++j) displs[static_cast<std::size_t>(j)] = j;
  }
  void set(int round) {
    mine = rank + kRoundStep * round;
    std::fill(all.begin(), all.end(), -1);
    if (rank == 0) all[0] = kRoundStep * round;  // the Bcast's data at its root
  }
  std::string check(IntraCall c, const std::string& call, int round) const {
    if (c == IntraCall::Bcast)
      return all[0] == kRoundStep * round ? "" : call + " gave a wrong result at start " + std::to_string(round + 1);
    if (c == IntraCall::Gather && rank != 0) return "";  // only the root receives
    return check_received(all, 0, round, call);
  }
};

// Every rank makes every call and both starts whatever it found (only the root checks a
// Gather: a rank that stopped at its own finding would leave the others waiting in the next
// collective); the first finding is kept.
template <class Post>
std::string try_intra_forms(MPI_Comm world, int rank, int size, bool persistent, Post post) {
  static const std::pair<IntraCall, const char*> kCalls[] = {{IntraCall::Allgather, "Allgather"},
                                                              {IntraCall::Allgatherv, "Allgatherv"},
                                                              {IntraCall::Gather, "Gather"},
                                                              {IntraCall::Bcast, "Bcast"}};
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  IntraProbe p(rank, size);
  std::string error;
  const auto keep = [&error](std::string found) {
    if (error.empty()) error = std::move(found);
  };
  for (const auto& [c, name] : kCalls) {
    const std::string call = (persistent ? "persistent " : "nonblocking ") + std::string(name);
    MPI_Request request = MPI_REQUEST_NULL;
    if (persistent) {
      p.set(0);
      if (post(c, p, &request) != MPI_SUCCESS) {
        keep(call + " failed");
        continue;
      }
    }
    for (int round = 0; round < 2; ++round) {  // the second start sees new data
      p.set(round);
      const int rc = persistent ? MPI_Start(&request) : post(c, p, &request);
      if (rc != MPI_SUCCESS || MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        keep(call + " failed");
      else
        keep(p.check(c, call, round));
    }
    if (persistent) MPI_Request_free(&request);
  }
  MPI_Comm_set_errhandler(world, MPI_ERRORS_ARE_FATAL);
  return error.empty() ? "" : error + " (intracommunicator)";
}

std::string try_intra_nonblocking(MPI_Comm world, int rank, int size) {
  return try_intra_forms(world, rank, size, false, [world](IntraCall c, IntraProbe& p, MPI_Request* r) {
    switch (c) {
      case IntraCall::Allgather: return MPI_Iallgather(&p.mine, 1, MPI_INT, p.all.data(), 1, MPI_INT, world, r);
      case IntraCall::Allgatherv:
        return MPI_Iallgatherv(&p.mine, 1, MPI_INT, p.all.data(), p.counts.data(), p.displs.data(), MPI_INT, world, r);
      case IntraCall::Gather: return MPI_Igather(&p.mine, 1, MPI_INT, p.all.data(), 1, MPI_INT, 0, world, r);
      default: return MPI_Ibcast(p.all.data(), 1, MPI_INT, 0, world, r);
    }
  });
}

std::string try_intra_native_persistent(MPI_Comm world, int rank, int size) {
  if (!*persistent_collectives()) return no_persistent_collectives();
  return try_intra_forms(world, rank, size, true, [world](IntraCall c, IntraProbe& p, MPI_Request* r) {
    switch (c) {
      case IntraCall::Allgather: return allgather_init(&p.mine, 1, MPI_INT, p.all.data(), 1, MPI_INT, world, r);
      case IntraCall::Allgatherv:
        return allgatherv_init(&p.mine, 1, MPI_INT, p.all.data(), p.counts.data(), p.displs.data(), MPI_INT, world, r);
      case IntraCall::Gather: return gather_init(&p.mine, 1, MPI_INT, p.all.data(), 1, MPI_INT, 0, world, r);
      default: return bcast_init(p.all.data(), 1, MPI_INT, 0, world, r);
    }
  });
}

// The native neighbourhood forms on a distributed-graph ring of `world` (in-neighbour rank - 1,
// out-neighbour rank + 1): MPI_Ineighbor_alltoall, then the persistent Neighbor_alltoall_init,
// each started twice with new data. {nonblocking error, persistent error}, "" when right.
std::pair<std::string, std::string> try_neighbor_calls(MPI_Comm world, int rank, int size) {
  const int from = (rank + size - 1) % size, to = (rank + 1) % size;
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  const int rc = MPI_Dist_graph_create_adjacent(world, 1, &from, MPI_UNWEIGHTED, 1, &to, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                                0, &graph);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_ARE_FATAL);
  if (rc != MPI_SUCCESS) return {"MPI_Dist_graph_create_adjacent failed", "MPI_Dist_graph_create_adjacent failed"};
  Comm owned(graph);
  MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
  int mine = 0;
  std::vector<int> got(1, -1);
  const auto set = [&](int round) {
    mine = rank + kRoundStep * round;
    got[0] = -1;
  };
  const auto check_from = [&](const std::string& call) {
    return [&, call](int round) { return check_received(got, from, round, call); };
  };
  std::string nonblocking;
  for (int round = 0; round < 2; ++round) {  // both rounds on every rank, whatever it found
    set(round);
    MPI_Request request = MPI_REQUEST_NULL;
    std::string found = MPI_Ineighbor_alltoall(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, graph, &request) != MPI_SUCCESS ||
                                MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS
                            ? "MPI_Ineighbor_alltoall failed"
                            : check_from("MPI_Ineighbor_alltoall")(round);
    if (nonblocking.empty()) nonblocking = std::move(found);
  }
  std::string persistent;
  MPI_Request request = MPI_REQUEST_NULL;
  if (!*persistent_neighbor_collectives())
    persistent = "no MPI_Neighbor_alltoall_init in this build (MPI-4, or MPIX_ in mpi-ext.h)";
  else if (neighbor_alltoall_init(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, graph, &request) != MPI_SUCCESS)
    persistent = std::string(persistent_neighbor_collectives()) + " failed";
  else
    persistent = start_twice(request, persistent_neighbor_collectives(), set, check_from(persistent_neighbor_collectives()));
  return {nonblocking, persistent};
}

// An intercommunicator between the lower and the upper half of the world, under
// MPI_ERRORS_RETURN: created, and both sides see the other's size. Needs two processes.
// With `calls`, also probes the native nonblocking and persistent forms on it.
bool try_intercomm(MPI_Comm world, int rank, int size, Capabilities* calls = nullptr) {
  const int half = size / 2, side = rank < half ? 0 : 1;
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  check(MPI_Comm_split(world, side, rank, &local), "MPI_Comm_split");
  Comm local_owned(local);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  const int rc = MPI_Intercomm_create(local, 0, world, side == 0 ? half : 0, 0x4cab, &inter);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_ARE_FATAL);
  if (rc != MPI_SUCCESS) return false;
  Comm inter_owned(inter);
  int flag = 0, remote = 0;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_remote_size(inter, &remote);
  const bool ok = flag != 0 && remote == (side == 0 ? size - half : half);
  if (ok && calls) {
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    const int first = side == 0 ? half : 0;
    const std::string nonblocking = try_inter_nonblocking(inter, rank, first, remote);
    const std::string persistent = try_inter_persistent(inter, rank, first, remote);
    calls->inter_nonblocking = nonblocking.empty();
    calls->inter_persistent = persistent.empty();
    calls->calls_reason = nonblocking + (nonblocking.empty() || persistent.empty() ? "" : "; ") + persistent;
  }
  return ok;
}

// A distributed graph communicator of this process alone (one self edge): created, and
// whether MPI_Topo_test labels it MPI_DIST_GRAPH.
std::pair<bool, bool> try_dist_graph() {
  const int self = 0, weight = 1;
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 1, &self, &weight, 1, &self, &weight, MPI_INFO_NULL,
                                                0, &graph);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  if (rc != MPI_SUCCESS) return {false, false};
  Comm owned(graph);
  int topology = MPI_UNDEFINED;
  return {true, MPI_Topo_test(graph, &topology) == MPI_SUCCESS && topology == MPI_DIST_GRAPH};
}

}  // namespace

Capabilities probe_capabilities(MPI_Comm world) {
  Capabilities c = Capabilities::from_identity(library_identity());
  if (c.simulated_clock) {  // SMPI: its missing calls abort instead of failing; nothing is tried
    c.how = "intercomm, dist_graph, topo_test: from the library identity (SimGrid SMPI)";
    return c;
  }
  int rank = 0, size = 1;
  check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(world, &size), "MPI_Comm_size");
  const auto [graph, labelled] = try_dist_graph();
  c.dist_graph = on_every_rank(graph, world);
  c.dist_graph_labelled = on_every_rank(labelled, world);
  c.how = "dist_graph, topo_test: probed";
  if (size >= 2) {
    Capabilities calls;
    c.intercomm = on_every_rank(try_intercomm(world, rank, size, &calls), world);
    c.how += "; intercomm: probed";
    c.inter_nonblocking = c.intercomm && on_every_rank(calls.inter_nonblocking, world);
    c.inter_persistent = c.intercomm && on_every_rank(calls.inter_persistent, world);
    const std::string typed = c.inter_typed ? "" : c.calls_reason;  // from the identity
    c.calls_reason = c.intercomm ? calls.calls_reason : "no intercommunicator";
    if (!typed.empty()) c.calls_reason += (c.calls_reason.empty() ? "" : "; ") + typed;
    c.how += "; inter_typed: from the library identity";
    c.how += "; intercomm nonblocking, persistent: probed (" +
             std::string(*persistent_collectives() ? persistent_collectives() : "no persistent collectives in this build") + ")";
  } else {
    c.how += "; intercomm: not probed (one process), assumed";
    c.inter_persistent = *persistent_collectives() != '\0';
    if (!c.inter_persistent) c.calls_reason = "no MPI_Allgather_init in this build (MPI-4, or MPIX_ in mpi-ext.h)";
  }
  const std::string intra = try_intra_persistent(world, rank, size);
  c.intra_persistent = on_every_rank(intra.empty(), world);
  if (!c.intra_persistent) c.calls_reason += (c.calls_reason.empty() ? "" : "; ") + (intra.empty() ? "on another rank" : intra);
  c.how += "; persistent sub-collectives: probed";
  const std::string intra_nonblocking = try_intra_nonblocking(world, rank, size);
  const std::string intra_native = try_intra_native_persistent(world, rank, size);
  c.intra_nonblocking = on_every_rank(intra_nonblocking.empty(), world);
  c.intra_native_persistent = on_every_rank(intra_native.empty(), world);
  for (const auto& [ok, e] : {std::pair{c.intra_nonblocking, intra_nonblocking}, {c.intra_native_persistent, intra_native}})
    if (!ok) c.calls_reason += (c.calls_reason.empty() ? "" : "; ") + (e.empty() ? "on another rank" : e);
  c.how += "; intracommunicator nonblocking, persistent natives: probed";
  if (c.dist_graph) {
    const auto [nonblocking, persistent] = try_neighbor_calls(world, rank, size);
    c.neighbor_nonblocking = on_every_rank(nonblocking.empty(), world);
    c.neighbor_persistent = on_every_rank(persistent.empty(), world);
    for (const std::string& e : {nonblocking, persistent})
      if (!e.empty()) c.calls_reason += (c.calls_reason.empty() ? "" : "; ") + e;
    c.how += "; neighbourhood nonblocking, persistent: probed";
  } else {
    c.neighbor_nonblocking = c.neighbor_persistent = false;
  }
  std::string missing;
  if (!c.intercomm) missing += "MPI_Intercomm_create failed";
  if (!c.dist_graph) missing += std::string(missing.empty() ? "" : ", ") + "MPI_Dist_graph_create_adjacent failed";
  if (!c.dist_graph_labelled && c.dist_graph)
    missing += std::string(missing.empty() ? "" : ", ") + "MPI_Topo_test does not label a dist graph MPI_DIST_GRAPH";
  if (!missing.empty()) c.reason = missing;
  return c;
}

}  // namespace collrepro

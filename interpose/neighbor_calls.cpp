// MPI_Neighbor_alltoall, MPI_Neighbor_allgather and MPI_Neighbor_alltoallw on isomorphic
// neighbourhoods (iso_topology.hpp), served by the isomorphic algorithms
// (algorithms/isomorphic), and their nonblocking (MPI_Ineighbor_*) and persistent
// (MPI_Neighbor_*_init, or Open MPI 4.1's MPIX_: neighbor_init.cpp exports them) forms. Other
// topologies pass through.
//
// An isomorphic algorithm needs block i to have the same size on every process. MPI asks
// only that each sender and its receiver agree; a process therefore checks that its own send
// and receive blocks agree (block k sent towards C^k, and the block received from the
// process at -C^k), which holds on every process of a consistent isomorphic call, and stops
// the job with one line when not, rather than risk wrong data.
#include <algorithm>
#include <functional>
#include <utility>

#include "collrepro/capabilities.hpp"
#include "context.hpp"
#include "intercept.hpp"
#include "neighbor_calls.hpp"
#include "requests.hpp"
#include "selection.hpp"
#include "served.hpp"
#include "settings.hpp"
#include "staging.hpp"

namespace collrepro::pmpi {
namespace {

bool has_topology(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  return comm != MPI_COMM_NULL && PMPI_Topo_test(comm, &kind) == MPI_SUCCESS &&
         (kind == MPI_CART || kind == MPI_DIST_GRAPH);
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  check(PMPI_Type_get_extent(t, &lb, &extent), "MPI_Type_get_extent");
  return extent;
}

std::byte* bytes(const void* p) { return const_cast<std::byte*>(static_cast<const std::byte*>(p)); }

// Blocks of a regular call: n blocks of `count` elements, block j at j * count * extent.
std::vector<Block> regular_blocks(const void* buf, int n, int count, MPI_Datatype type) {
  const MPI_Aint step = static_cast<MPI_Aint>(count) * extent_of(type);
  std::vector<Block> out;
  for (int j = 0; j < n; ++j) out.push_back({bytes(buf) + j * step, count, type});
  return out;
}

// MPI's receive blocks in the algorithms' order; those from MPI_PROC_NULL marked to be dropped.
std::vector<Block> in_algorithm_order(const std::vector<Block>& mpi, const IsoTopology& topo) {
  std::vector<Block> out;
  for (int p : topo.recv_position) {
    out.push_back(mpi[static_cast<std::size_t>(p)]);
    out.back().discard = topo.discard[static_cast<std::size_t>(p)];
  }
  return out;
}

// The algorithm that serves this shape in this form (nullptr: the MPI library's call); one that
// does not offer the form (Algorithm::supports_call) is not a candidate.
const Algorithm* choose(Collective c, const iso::Shape& shape, CallForm form) {
  std::vector<Candidate> candidates;
  for (const auto* a : Registry::global().family<iso::IsoAlgorithm>(c)) {
    Candidate k{a, a->supports(shape, settings().caps), {}};
    if (k.support) k.support = a->supports_call(form, settings().caps);
    if (k.support) k.cost = a->cost(shape);
    candidates.push_back(std::move(k));
  }
  Query q;
  q.collective = c;
  q.call = form;
  q.offsets = sorted_offsets(shape.neighborhood.offsets());
  q.msg_size = shape.block;
  const std::string what = shape.describe();
  return select(settings(), q, candidates, form == CallForm::Blocking ? what : what + " (" + to_string(form) + ")");
}

iso::Args args_of(const Staged& send, const Staged& recv) {
  iso::Args args;
  args.send = send.base();
  args.recv = recv.base();
  args.send_counts = send.counts();
  args.send_displs = send.displs();
  args.recv_counts = recv.counts();
  args.recv_displs = recv.displs();
  return args;
}

iso::Shape shape_of(const iso::Args& args, const IsoTopology& topo) {
  const std::size_t largest = *std::max_element(args.recv_counts.begin(), args.recv_counts.end());
  return iso::Shape::regular(topo.neighborhood, largest, topo.dims);
}

void require_isomorphic(Collective c, const iso::Args& args) {
  const bool gather = c == Collective::NeighborAllgather;
  for (std::size_t k = 0; k < args.recv_counts.size(); ++k) {
    const std::size_t sent = args.send_counts[gather ? 0 : k];
    if (sent != args.recv_counts[k])
      throw std::invalid_argument(std::string(to_string(c)) + ": block " + std::to_string(k) + " is sent with " +
                                  std::to_string(sent) + " bytes but received with " +
                                  std::to_string(args.recv_counts[k]) +
                                  " (an isomorphic call has the same block sizes on every process)");
  }
}

// The plan for this call, from the cache or made now (prepare() of the isomorphic algorithms
// is local: schedules and datatypes on these buffers).
Plan<iso::Args>& plan_for(IsoState& st, Collective c, const Staged& send, const Staged& recv) {
  IsoKey key{c, send.base(), recv.base(), send.counts(), send.displs(), recv.counts(), recv.displs()};
  if (Plan<iso::Args>* hit = st.plans.find(key)) return *hit;
  auto args = std::make_unique<iso::Args>(args_of(send, recv));
  require_isomorphic(c, *args);
  const IsoTopology& topo = *st.topology;
  auto plan = std::make_unique<Plan<iso::Args>>();
  plan->algorithm = choose(c, shape_of(*args, topo), CallForm::Blocking);
  if (plan->algorithm) {
    plan->args = std::move(args);
    plan->runner = static_cast<const iso::IsoAlgorithm*>(plan->algorithm)->prepare(topo.comm, *plan->args);
  }
  return st.plans.insert(std::move(key), std::move(plan));
}

// Detects the topology once; its `topology` is nullopt when the communicator's topology is not
// isomorphic.
const std::shared_ptr<IsoState>& iso_state(MPI_Comm comm) {
  Context& ctx = context_of(comm);
  if (!ctx.iso) {
    ctx.iso = std::make_shared<IsoState>();
    ctx.iso->topology = detect_isomorphic(comm);
  }
  return ctx.iso;
}

// Serves one call: `native` is the MPI library's call with the user's arguments; send_blocks(s)
// and recv_blocks(s) list the blocks of a call with s neighbours (asked only once the topology
// is known isomorphic: in-degree = out-degree = s).
template <class SendBlocks, class RecvBlocks, class Native>
int serve(Collective c, MPI_Comm comm, const void* sbuf, SendBlocks send_blocks, void* rbuf, RecvBlocks recv_blocks,
          Native native) {
  IsoState& st = *iso_state(comm);
  if (!st.topology) {
    count_served(c, nullptr);
    return native();
  }
  Context& ctx = context_of(comm);
  const int s = static_cast<int>(st.topology->neighborhood.size());
  Staged send(bytes(sbuf), send_blocks(s), ctx.send_scratch, Staged::Side::Send);
  Staged recv(bytes(rbuf), in_algorithm_order(recv_blocks(s), *st.topology), ctx.recv_scratch, Staged::Side::Recv);
  Plan<iso::Args>& plan = plan_for(st, c, send, recv);
  count_served(c, plan.algorithm);
  if (!plan.algorithm) return native();
  send.pack();
  plan.runner->run();
  recv.unpack();
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// The nonblocking and persistent forms: the isomorphic algorithms' own (IsoAlgorithm::
// prepare_call) behind requests the library owns (requests.hpp).

// One served nonblocking or persistent neighbourhood call: its own scratch and staged sides (an
// outstanding call never shares them with another call), the algorithm's arguments and its
// runner of the call's form. A persistent call is built once, at its init, on the application's
// buffers (it binds them, as MPI_Send_init does); a start packs, starts and returns. A
// nonblocking call is built at the call, as the MPI libraries build their own nonblocking
// schedules per call.
class StartedNeighbor final : public ServedCall {
 public:
  StartedNeighbor(Collective c, CallForm form, std::shared_ptr<IsoState> state, const void* sbuf,
                  std::vector<Block> send_blocks, void* rbuf, const std::vector<Block>& recv_blocks)
      : c_(c), form_(form), state_(std::move(state)),
        send_(bytes(sbuf), std::move(send_blocks), send_scratch_, Staged::Side::Send),
        recv_(bytes(rbuf), in_algorithm_order(recv_blocks, *state_->topology), recv_scratch_, Staged::Side::Recv),
        args_(args_of(send_, recv_)) {
    require_isomorphic(c_, args_);
  }

  // Chooses the algorithm for this form and prepares its runner; false: the MPI library's call.
  bool prepare() {
    const IsoTopology& topo = *state_->topology;
    algorithm_ = choose(c_, shape_of(args_, topo), form_);
    if (!algorithm_) return false;
    runner_ = static_cast<const iso::IsoAlgorithm*>(algorithm_)->prepare_call(topo.comm, args_, form_);
    return true;
  }
  const Algorithm* algorithm() const { return algorithm_; }

  void start() override {
    send_.pack();
    start_call(*runner_);
    if (form_ == CallForm::Persistent) count_started(c_, algorithm_);
  }
  void finish() override {
    wait_call(*runner_);
    recv_.unpack();
  }

 private:
  Collective c_;
  CallForm form_;
  std::shared_ptr<IsoState> state_;  // the communicator the runner works on
  std::vector<std::byte> send_scratch_, recv_scratch_;  // before the Staged sides that point into them
  Staged send_, recv_;
  iso::Args args_;
  const Algorithm* algorithm_ = nullptr;
  std::unique_ptr<Runner> runner_;  // destroyed first: it frees its requests and datatypes
};

// Serves one nonblocking call or persistent init: `native` is the MPI library's call with the
// user's arguments (and request); send_blocks(s) and recv_blocks(s) as for serve().
template <class SendBlocks, class RecvBlocks, class Native>
int serve_started(Collective c, CallForm form, const char* name, MPI_Comm comm, const void* sbuf,
                  SendBlocks send_blocks, void* rbuf, RecvBlocks recv_blocks, MPI_Request* request, Native native) {
  const std::shared_ptr<IsoState>& state = iso_state(comm);
  if (!state->topology) {
    count_served(c, nullptr, form);
    return native();
  }
  const int s = static_cast<int>(state->topology->neighborhood.size());
  auto call = std::make_unique<StartedNeighbor>(c, form, state, sbuf, send_blocks(s), rbuf, recv_blocks(s));
  const bool served = call->prepare();
  count_served(c, call->algorithm(), form);
  if (!served) return native();
  if (form == CallForm::Nonblocking) call->start();
  *request = own_request(std::move(call), form == CallForm::Persistent, name, comm);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace collrepro::pmpi

using namespace collrepro::pmpi;
using collrepro::CallForm;
using collrepro::Collective;

namespace {

// The blocks of one call's sides, asked once the topology is known isomorphic (s neighbours).
struct Sides {
  const void* sbuf;
  std::function<std::vector<Block>(int)> send;
  void* rbuf;
  std::function<std::vector<Block>(int)> recv;
};

Sides regular_sides(Collective c, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                    MPI_Datatype rtype) {
  const bool gather = c == Collective::NeighborAllgather;  // one send block, to every neighbour
  return {sbuf, [=](int s) { return regular_blocks(sbuf, gather ? 1 : s, scount, stype); }, rbuf,
          [=](int s) { return regular_blocks(rbuf, s, rcount, rtype); }};
}

Sides alltoallw_sides(const void* sbuf, const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[],
                      void* rbuf, const int rcounts[], const MPI_Aint rdispls[], const MPI_Datatype rtypes[]) {
  auto blocks = [](const void* buf, const int* counts, const MPI_Aint* displs, const MPI_Datatype* types, int s) {
    std::vector<Block> out;
    for (int j = 0; j < s; ++j) out.push_back({bytes(buf) + displs[j], counts[j], types[j]});
    return out;
  };
  return {sbuf, [=](int s) { return blocks(sbuf, scounts, sdispls, stypes, s); }, rbuf,
          [=](int s) { return blocks(rbuf, rcounts, rdispls, rtypes, s); }};
}

// Every neighbourhood intercept: on a topology communicator, served in its form (the blocking
// call, a nonblocking call, a persistent init: `request` for the last two); else `native`.
int intercept(Collective c, CallForm form, const char* name, MPI_Comm comm, const Sides& sides,
              MPI_Request* request, const std::function<int()>& native) {
  if (!intercepting() || !has_topology(comm)) return native();
  return guarded(name, comm, [&] {
    if (form == CallForm::Blocking) return serve(c, comm, sides.sbuf, sides.send, sides.rbuf, sides.recv, native);
    return serve_started(c, form, name, comm, sides.sbuf, sides.send, sides.rbuf, sides.recv, request, native);
  });
}

int neighbor_alltoall_call(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm) {
  return intercept(Collective::NeighborAlltoall, CallForm::Blocking, "MPI_Neighbor_alltoall", comm,
                   regular_sides(Collective::NeighborAlltoall, sbuf, scount, stype, rbuf, rcount, rtype), nullptr,
                   [&] { return PMPI_Neighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm); });
}

// The neighbour counts of a topology communicator (0, 0 when it has none).
std::pair<int, int> degrees(MPI_Comm comm) {
  int kind = MPI_UNDEFINED, in = 0, out = 0, weighted = 0;
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return {0, 0};
  if (kind == MPI_DIST_GRAPH && PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) == MPI_SUCCESS)
    return {in, out};
  if (kind == MPI_CART && PMPI_Cartdim_get(comm, &in) == MPI_SUCCESS) return {2 * in, 2 * in};
  return {0, 0};
}

}  // namespace

// Delay mode (delay.hpp): MPI_Neighbor_alltoall(v) on any communicator (the isomorphic
// algorithms exchange point to point, so only collbench's neighbourhood natives call them).
extern "C" int MPI_Neighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                     MPI_Datatype rtype, MPI_Comm comm) {
  auto call = [&] { return neighbor_alltoall_call(sbuf, scount, stype, rbuf, rcount, rtype, comm); };
  if (delaying(DelayCall::NeighborAlltoall)) {
    const std::size_t bytes = std::max(call_bytes(scount, stype), call_bytes(rcount, rtype));
    if (const DelayRule* rule = find_delay(settings().delay, DelayCall::NeighborAlltoall, bytes))
      return delayed(*rule, bytes, comm, call);
  }
  return call();
}

// Never served by an algorithm: intercepted for delay mode only.
extern "C" int MPI_Neighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                      void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                      MPI_Comm comm) {
  auto call = [&] { return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm); };
  if (delaying(DelayCall::NeighborAlltoallv)) {
    const auto [in, out] = degrees(comm);
    std::size_t bytes = 0;
    for (int j = 0; scounts && j < out; ++j) bytes = std::max(bytes, call_bytes(scounts[j], stype));
    for (int j = 0; rcounts && j < in; ++j) bytes = std::max(bytes, call_bytes(rcounts[j], rtype));
    if (const DelayRule* rule = find_delay(settings().delay, DelayCall::NeighborAlltoallv, bytes))
      return delayed(*rule, bytes, comm, call);
  }
  return call();
}

extern "C" int MPI_Neighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                      MPI_Datatype rtype, MPI_Comm comm) {
  return intercept(Collective::NeighborAllgather, CallForm::Blocking, "MPI_Neighbor_allgather", comm,
                   regular_sides(Collective::NeighborAllgather, sbuf, scount, stype, rbuf, rcount, rtype), nullptr,
                   [&] { return PMPI_Neighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm); });
}

extern "C" int MPI_Neighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                                      const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
  return intercept(Collective::NeighborAlltoallw, CallForm::Blocking, "MPI_Neighbor_alltoallw", comm,
                   alltoallw_sides(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes), nullptr, [&] {
                     return PMPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                                    comm);
                   });
}

// The nonblocking forms (MPI-3: every library has them).
extern "C" int MPI_Ineighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                      MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  return intercept(Collective::NeighborAlltoall, CallForm::Nonblocking, "MPI_Ineighbor_alltoall", comm,
                   regular_sides(Collective::NeighborAlltoall, sbuf, scount, stype, rbuf, rcount, rtype), request,
                   [&] { return PMPI_Ineighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, request); });
}

extern "C" int MPI_Ineighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                       MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  return intercept(Collective::NeighborAllgather, CallForm::Nonblocking, "MPI_Ineighbor_allgather", comm,
                   regular_sides(Collective::NeighborAllgather, sbuf, scount, stype, rbuf, rcount, rtype), request,
                   [&] { return PMPI_Ineighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request); });
}

extern "C" int MPI_Ineighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                                       MPI_Request* request) {
  return intercept(Collective::NeighborAlltoallw, CallForm::Nonblocking, "MPI_Ineighbor_alltoallw", comm,
                   alltoallw_sides(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes), request, [&] {
                     return PMPI_Ineighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                                     comm, request);
                   });
}

// The persistent inits' entries (neighbor_init.cpp exports them under the build's names).
int collrepro::pmpi::neighbor_regular_init_call(Collective c, const char* name, NeighborRegularInit library,
                                                const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                                                int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  return intercept(c, CallForm::Persistent, name, comm, regular_sides(c, sbuf, scount, stype, rbuf, rcount, rtype),
                   request, [&] { return library(sbuf, scount, stype, rbuf, rcount, rtype, comm, info, request); });
}

int collrepro::pmpi::neighbor_alltoallw_init_call(const char* name, NeighborAlltoallwInit library, const void* sbuf,
                                                  const int scounts[], const MPI_Aint sdispls[],
                                                  const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                                                  const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
                                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return intercept(Collective::NeighborAlltoallw, CallForm::Persistent, name, comm,
                   alltoallw_sides(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes), request, [&] {
                     return library(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, info,
                                    request);
                   });
}

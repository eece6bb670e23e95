// MPI_Allgather and MPI_Allgatherv on intercommunicators, served by the inter-group
// algorithms (algorithms/intergroup, algorithms/ring). Intracommunicator calls pass through.
#include <algorithm>
#include <cstdint>

#include "collrepro/capabilities.hpp"
#include "context.hpp"
#include "intercept.hpp"
#include "selection.hpp"
#include "served.hpp"
#include "staging.hpp"

namespace collrepro::pmpi {
namespace {

bool is_intercomm(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  check(PMPI_Type_get_extent(t, &lb, &extent), "MPI_Type_get_extent");
  return extent;
}

Query query_of(Collective c, const inter::Shape& shape) {
  Query q;
  q.collective = c;
  q.larger = std::max(shape.p, shape.q);
  q.smaller = std::min(shape.p, shape.q);
  q.half_duplex = shape.half_duplex();
  // The shape is global (Allgather: both block sizes, which every process reads from its send
  // and receive counts; Allgatherv: every process's size, gathered), so every process of both
  // groups finds the same sending group: a sender its own group, a receiver the remote one.
  q.senders = sending_group(shape.p, shape.q, shape.total(0), shape.total(1));
  q.msg_size = std::max(shape.max_block(0), shape.max_block(1));
  return q;
}

const Algorithm* choose(Collective c, const inter::Shape& shape) {
  std::vector<Candidate> candidates;
  for (const auto* a : Registry::global().family<inter::InterAlgorithm>(c)) {
    Candidate k{a, a->supports(shape, PairMode::Intercomm), {}};
    if (k.support) k.cost = a->cost(shape);
    candidates.push_back(std::move(k));
  }
  return select(settings(), query_of(c, shape), candidates, shape.describe());
}

// A new plan for this shape: the choice, and for an algorithm its prepared Runner (collective
// over both groups). `args` holds the layout; its buffers are set at every call.
std::unique_ptr<Plan<inter::Args>> make_plan(Collective c, const inter::Shape& shape, const GroupPair& pair,
                                             inter::Args args) {
  auto plan = std::make_unique<Plan<inter::Args>>();
  plan->algorithm = choose(c, shape);
  if (!plan->algorithm) return plan;
  plan->args = std::make_unique<inter::Args>(std::move(args));
  plan->runner = static_cast<const inter::InterAlgorithm*>(plan->algorithm)->prepare(pair, *plan->args);
  return plan;
}

// Runs a chosen plan on this call's buffers; the receive displacements count from recv_origin.
void run(Plan<inter::Args>& plan, const Staged& send, const Staged& recv, std::size_t recv_origin) {
  send.pack();
  plan.args->send = send.base() + send.displs()[0];
  plan.args->recv = recv.base() + recv_origin;
  plan.runner->run();
  recv.unpack();
}

std::vector<Block> recv_blocks(void* rbuf, const int* counts, const int* displs, int n, int count,
                               MPI_Datatype type) {
  const MPI_Aint extent = extent_of(type);
  std::vector<Block> blocks;
  for (int j = 0; j < n; ++j) {
    const MPI_Aint at = (displs ? displs[j] : static_cast<MPI_Aint>(j) * count) * extent;
    blocks.push_back({static_cast<std::byte*>(rbuf) + at, counts ? counts[j] : count, type});
  }
  return blocks;
}

// The communicator's context, with its GroupPair built on the first inter-group call.
Context& inter_context(MPI_Comm comm) {
  Context& ctx = context_of(comm);
  if (!ctx.inter) ctx.inter = std::make_unique<InterState>(comm);
  return ctx;
}

// The send side: one block.
Staged send_side(Context& ctx, const void* sbuf, int scount, MPI_Datatype stype) {
  auto* at = const_cast<std::byte*>(static_cast<const std::byte*>(sbuf));
  return Staged(at, {{at, scount, stype}}, ctx.send_scratch, Staged::Side::Send);
}

inter::Args layout(std::size_t send_bytes, std::vector<std::size_t> counts, std::vector<std::size_t> displs) {
  inter::Args args;
  args.send_bytes = send_bytes;
  args.recv_counts = std::move(counts);
  args.recv_displs = std::move(displs);
  return args;
}

// The layout of an Allgather is fixed by the two block sizes: remote block j at j * theirs,
// whether the algorithm writes into the user's buffer or into scratch. So the plan is found
// (and the native choice taken) before any datatype is looked at.
int serve_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                    MPI_Comm comm) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  const std::size_t mine = block_bytes(scount, stype), theirs = block_bytes(rcount, rtype);
  InterKey key{Collective::Allgather, mine, {theirs}, {}};
  Plan<inter::Args>* plan = ctx.inter->allgather.find(key);
  if (!plan) {
    const bool a = pair.side() == 0;
    const auto shape = inter::Shape::uniform(pair.size_of(0), pair.size_of(1), a ? mine : theirs, a ? theirs : mine);
    const auto n = static_cast<std::size_t>(pair.remote_size());
    std::vector<std::size_t> displs(n);
    for (std::size_t j = 0; j < n; ++j) displs[j] = j * theirs;
    plan = &ctx.inter->allgather.insert(
        std::move(key), make_plan(Collective::Allgather, shape, pair, layout(mine, std::vector(n, theirs), displs)));
  }
  count_served(Collective::Allgather, plan->algorithm);
  if (!plan->algorithm) return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  const Staged send = send_side(ctx, sbuf, scount, stype);
  const Staged recv(static_cast<std::byte*>(rbuf), recv_blocks(rbuf, nullptr, nullptr, pair.remote_size(), rcount, rtype),
                    ctx.recv_scratch, Staged::Side::Recv, theirs);
  run(*plan, send, recv, recv.displs()[0]);  // the blocks lie at j * theirs from the first
  return MPI_SUCCESS;
}

// The global shape of an Allgatherv: every process's send size, gathered over both groups.
inter::Shape gather_shape(const GroupPair& pair, std::size_t mine) {
  const int n = pair.size_of(0) + pair.size_of(1);
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(n));
  const std::uint64_t m = mine;
  check(PMPI_Allgather(&m, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, pair.both()), "MPI_Allgather");
  inter::Shape shape;
  shape.p = pair.size_of(0);
  shape.q = pair.size_of(1);
  for (int r = 0; r < n; ++r) (r < shape.p ? shape.a : shape.b).push_back(sizes[static_cast<std::size_t>(r)]);
  return shape;
}

int serve_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                     const int* rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  const Staged send = send_side(ctx, sbuf, scount, stype);
  Staged recv(static_cast<std::byte*>(rbuf), recv_blocks(rbuf, rcounts, rdispls, pair.remote_size(), 0, rtype),
              ctx.recv_scratch, Staged::Side::Recv);
  InterKey key{Collective::Allgatherv, send.counts()[0], recv.counts(), recv.displs()};
  Plan<inter::Args>* plan = ctx.inter->allgatherv.find(key);
  int miss = plan ? 0 : 1, any_miss = 0;
  check(PMPI_Allreduce(&miss, &any_miss, 1, MPI_INT, MPI_MAX, pair.both()), "MPI_Allreduce");
  if (any_miss) {
    const inter::Shape shape = gather_shape(pair, send.counts()[0]);
    plan = &ctx.inter->allgatherv.insert(
        std::move(key),
        make_plan(Collective::Allgatherv, shape, pair, layout(send.counts()[0], recv.counts(), recv.displs())));
  }
  count_served(Collective::Allgatherv, plan->algorithm);
  if (!plan->algorithm) return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm);
  run(*plan, send, recv, 0);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace collrepro::pmpi

using namespace collrepro::pmpi;

namespace {

int allgather_call(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm) {
  if (!intercepting() || !is_intercomm(comm)) return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  return guarded("MPI_Allgather", comm, [&] { return serve_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm); });
}

int allgatherv_call(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                    const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  if (!intercepting() || !is_intercomm(comm))
    return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm);
  return guarded("MPI_Allgatherv", comm,
                 [&] { return serve_allgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm); });
}

// Delay mode (delay.hpp): only calls on an intercommunicator, the inter-group natives.
const DelayRule* inter_delay(DelayCall c, MPI_Comm comm, std::size_t bytes) {
  return is_intercomm(comm) ? find_delay(settings().delay, c, bytes) : nullptr;
}

}  // namespace

extern "C" int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm) {
  auto call = [&] { return allgather_call(sbuf, scount, stype, rbuf, rcount, rtype, comm); };
  if (delaying(DelayCall::Allgather)) {
    const std::size_t bytes = std::max(call_bytes(scount, stype), call_bytes(rcount, rtype));
    if (const DelayRule* rule = inter_delay(DelayCall::Allgather, comm, bytes)) return delayed(*rule, bytes, comm, call);
  }
  return call();
}

extern "C" int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                              const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  auto call = [&] { return allgatherv_call(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm); };
  if (delaying(DelayCall::Allgatherv) && is_intercomm(comm)) {
    std::size_t bytes = call_bytes(scount, stype);
    int remote = 0;
    if (rcounts && PMPI_Comm_remote_size(comm, &remote) == MPI_SUCCESS)
      for (int j = 0; j < remote; ++j) bytes = std::max(bytes, call_bytes(rcounts[j], rtype));
    if (const DelayRule* rule = inter_delay(DelayCall::Allgatherv, comm, bytes))
      return delayed(*rule, bytes, comm, call);
  }
  return call();
}

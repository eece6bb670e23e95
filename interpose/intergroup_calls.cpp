// MPI_Allgather and MPI_Allgatherv on intercommunicators, served by the inter-group
// algorithms (algorithms/intergroup, algorithms/ring), and their other forms: MPI_Iallgather,
// MPI_Iallgatherv and the persistent inits (allgather_init.cpp exports them under the names the
// build found), served by the algorithms' nonblocking and persistent forms behind requests the
// library owns (requests.hpp). Intracommunicator calls pass through.
#include "intergroup_calls.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "collrepro/capabilities.hpp"
#include "collrepro/mpi.hpp"
#include "context.hpp"
#include "intercept.hpp"
#include "requests.hpp"
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

// The algorithm that serves this shape in this form (nullptr: the MPI library's call). An
// algorithm that does not offer the form (Algorithm::supports_call, with the capabilities
// probed at MPI_Init) is not a candidate, as one that does not support the shape.
const Algorithm* choose(Collective c, const inter::Shape& shape, CallForm form) {
  std::vector<Candidate> candidates;
  for (const auto* a : Registry::global().family<inter::InterAlgorithm>(c)) {
    Candidate k{a, a->supports(shape, PairMode::Intercomm), {}};
    if (k.support) k.support = a->supports_call(form, settings().caps);
    if (k.support) k.cost = a->cost(shape);
    candidates.push_back(std::move(k));
  }
  Query q = query_of(c, shape);
  q.call = form;
  return select(settings(), q, candidates, shape.describe() + " (" + to_string(form) + ")");
}

// The algorithm's Runner for `form` (collective over both groups). A persistent form binds the
// buffers `args` holds now; the other forms read them at every call.
std::unique_ptr<Runner> prepare(const Algorithm* algorithm, const GroupPair& pair, const inter::Args& args,
                                CallForm form) {
  return static_cast<const inter::InterAlgorithm*>(algorithm)->prepare_call(pair, args, form, settings().caps);
}

// A new plan for this shape: the choice, and for an algorithm its prepared Runner (collective
// over both groups). `args` holds the layout; its buffers are set at every call.
std::unique_ptr<Plan<inter::Args>> make_plan(Collective c, const inter::Shape& shape, const GroupPair& pair,
                                             inter::Args args) {
  auto plan = std::make_unique<Plan<inter::Args>>();
  plan->algorithm = choose(c, shape, CallForm::Blocking);
  if (!plan->algorithm) return plan;
  plan->args = std::make_unique<inter::Args>(std::move(args));
  plan->runner = prepare(plan->algorithm, pair, *plan->args, CallForm::Blocking);
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
  if (!ctx.inter) ctx.inter = std::make_shared<InterState>(comm);
  return ctx;
}

// The send side: one block.
Staged send_side(std::vector<std::byte>& scratch, const void* sbuf, int scount, MPI_Datatype stype) {
  auto* at = const_cast<std::byte*>(static_cast<const std::byte*>(sbuf));
  return Staged(at, {{at, scount, stype}}, scratch, Staged::Side::Send);
}

// The receive side of an Allgather: remote block j at j * theirs bytes from the first.
Staged allgather_recv_side(std::vector<std::byte>& scratch, const GroupPair& pair, void* rbuf, int rcount,
                           MPI_Datatype rtype, std::size_t theirs) {
  return Staged(static_cast<std::byte*>(rbuf), recv_blocks(rbuf, nullptr, nullptr, pair.remote_size(), rcount, rtype),
                scratch, Staged::Side::Recv, theirs);
}

// The global shape of an Allgather, from this process's two block sizes.
inter::Shape allgather_shape(const GroupPair& pair, std::size_t mine, std::size_t theirs) {
  const bool a = pair.side() == 0;
  return inter::Shape::uniform(pair.size_of(0), pair.size_of(1), a ? mine : theirs, a ? theirs : mine);
}

inter::Args layout(std::size_t send_bytes, std::vector<std::size_t> counts, std::vector<std::size_t> displs) {
  inter::Args args;
  args.send_bytes = send_bytes;
  args.recv_counts = std::move(counts);
  args.recv_displs = std::move(displs);
  return args;
}

// The layout of an Allgather: every remote block of `theirs` bytes, block j at j * theirs.
inter::Args allgather_layout(const GroupPair& pair, std::size_t mine, std::size_t theirs) {
  const auto n = static_cast<std::size_t>(pair.remote_size());
  std::vector<std::size_t> displs(n);
  for (std::size_t j = 0; j < n; ++j) displs[j] = j * theirs;
  return layout(mine, std::vector(n, theirs), displs);
}

// The layout of an Allgather is fixed by the two block sizes: remote block j at j * theirs,
// whether the algorithm writes into the user's buffer or into scratch. So the plan is found
// (and the native choice taken) before any datatype is looked at.
bool fits_int(std::size_t bytes) { return bytes <= static_cast<std::size_t>(std::numeric_limits<int>::max()); }

int serve_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                    MPI_Comm comm) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  const std::size_t mine = block_bytes(scount, stype), theirs = block_bytes(rcount, rtype);
  InterKey key{Collective::Allgather, mine, {theirs}, {}};
  Plan<inter::Args>* plan = ctx.inter->allgather.find(key);
  if (!plan) {
    auto made = make_plan(Collective::Allgather, allgather_shape(pair, mine, theirs), pair,
                          allgather_layout(pair, mine, theirs));
    plan = &ctx.inter->allgather.insert(std::move(key), std::move(made));
  }
  count_served(Collective::Allgather, plan->algorithm);
  if (!plan->algorithm && (settings().caps.inter_typed || !fits_int(mine) || !fits_int(theirs)))
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  const Staged send = send_side(ctx.send_scratch, sbuf, scount, stype);
  const Staged recv = allgather_recv_side(ctx.recv_scratch, pair, rbuf, rcount, rtype, theirs);
  if (!plan->algorithm) {  // the MPI library's call, on bytes: its typed one is wrong (caps.inter_typed)
    send.pack();
    const int rc = PMPI_Allgather(send.base() + send.displs()[0], static_cast<int>(mine), MPI_BYTE,
                                  recv.base() + recv.displs()[0], static_cast<int>(theirs), MPI_BYTE, comm);
    if (rc == MPI_SUCCESS) recv.unpack();
    return rc;
  }
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

// An Allgatherv the MPI library serves: its typed call, or, where that is wrong for
// non-contiguous types (caps.inter_typed), the same call on the staged bytes.
int native_allgatherv(const Staged& send, const Staged& recv, const void* sbuf, int scount, MPI_Datatype stype,
                      void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  const auto& counts = recv.counts();
  const auto& displs = recv.displs();
  const bool fits = fits_int(send.counts()[0]) && std::all_of(counts.begin(), counts.end(), fits_int) &&
                    std::all_of(displs.begin(), displs.end(), fits_int);
  if (settings().caps.inter_typed || !fits) return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm);
  const std::vector<int> bytes(counts.begin(), counts.end()), at(displs.begin(), displs.end());
  send.pack();
  const int rc = PMPI_Allgatherv(send.base() + send.displs()[0], static_cast<int>(send.counts()[0]), MPI_BYTE,
                                 recv.base(), bytes.data(), at.data(), MPI_BYTE, comm);
  if (rc == MPI_SUCCESS) recv.unpack();
  return rc;
}

int serve_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                     const int* rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  const Staged send = send_side(ctx.send_scratch, sbuf, scount, stype);
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
  if (!plan->algorithm) return native_allgatherv(send, recv, sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm);
  run(*plan, send, recv, 0);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// MPI_Iallgather(v) and the persistent inits: the algorithms' nonblocking and persistent forms
// (InterAlgorithm::prepare_call) behind requests the library owns (requests.hpp).

// The buffers of one served nonblocking or persistent call, with scratch of its own (a staged
// side packs at every start and unpacks at every completion), apart from the blocking calls'
// scratch and from other outstanding calls.
struct CallBuffers {
  // An Allgather: remote block j at j * theirs bytes from the first.
  CallBuffers(const GroupPair& pair, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
              MPI_Datatype rtype, std::size_t theirs)
      : send(send_side(send_scratch, sbuf, scount, stype)),
        recv(allgather_recv_side(recv_scratch, pair, rbuf, rcount, rtype, theirs)), recv_origin(recv.displs()[0]) {}
  // An Allgatherv: remote block j at the application's displacement j.
  CallBuffers(const GroupPair& pair, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
              const int* rdispls, MPI_Datatype rtype)
      : send(send_side(send_scratch, sbuf, scount, stype)),
        recv(static_cast<std::byte*>(rbuf), recv_blocks(rbuf, rcounts, rdispls, pair.remote_size(), 0, rtype),
             recv_scratch, Staged::Side::Recv),
        recv_origin(0) {}
  CallBuffers(const CallBuffers&) = delete;
  CallBuffers& operator=(const CallBuffers&) = delete;

  // The call's layout as the algorithms see it (receive displacements from recv_origin).
  inter::Args layout() const {
    std::vector<std::size_t> displs = recv.displs();
    for (std::size_t& d : displs) d -= recv_origin;
    return pmpi::layout(send.counts()[0], recv.counts(), std::move(displs));
  }
  void bind(inter::Args& args) const {
    args.send = send.base() + send.displs()[0];
    args.recv = recv.base() + recv_origin;
  }

  std::vector<std::byte> send_scratch, recv_scratch;  // before the Staged sides that point into them
  Staged send, recv;
  std::size_t recv_origin;
};

// A persistent Allgather(v) an algorithm serves: its own Runner of the persistent form, built at
// init on the application's buffers (a persistent form binds them, as MPI_Send_init does), so a
// start only starts what the init built. It works on a GroupPair of its own (communicators
// duplicated at init, which is collective), so that requests active at once never match each
// other's messages.
class PersistentCall final : public ServedCall {
 public:
  PersistentCall(MPI_Comm comm, Collective c, const Algorithm* algorithm, std::unique_ptr<CallBuffers> buffers)
      : pair_(GroupPair::from_intercomm(comm)), collective_(c), algorithm_(algorithm), buffers_(std::move(buffers)),
        args_(buffers_->layout()) {
    buffers_->bind(args_);
    runner_ = prepare(algorithm_, pair_, args_, CallForm::Persistent);
  }

  void start() override {
    buffers_->send.pack();
    start_call(*runner_);
    count_started(collective_, algorithm_);
  }
  void finish() override {
    wait_call(*runner_);
    buffers_->recv.unpack();
  }

 private:
  GroupPair pair_;  // the runner works on it
  Collective collective_;
  const Algorithm* algorithm_;
  std::unique_ptr<CallBuffers> buffers_;
  inter::Args args_;
  std::unique_ptr<Runner> runner_;  // destroyed first: it frees its persistent requests
};

// One MPI_Iallgather(v) an algorithm serves, on a slot of its key (context.hpp).
class NonblockingCall final : public ServedCall {
 public:
  NonblockingCall(std::shared_ptr<NonblockingSlot> slot, std::unique_ptr<CallBuffers> buffers)
      : slot_(std::move(slot)), buffers_(std::move(buffers)) {}
  ~NonblockingCall() override {
    if (slot_->lane->busy == this) slot_->lane->busy = nullptr;
  }

  void start() override {
    Lane& lane = *slot_->lane;
    if (lane.busy) lane.busy->finish();  // the lane's earlier call completes first
    buffers_->send.pack();
    buffers_->bind(slot_->args);
    start_call(*slot_->runner);
    lane.busy = this;
  }
  void finish() override {
    if (slot_->lane->busy != this) return;  // completed already (its lane was needed again)
    wait_call(*slot_->runner);
    buffers_->recv.unpack();
    slot_->lane->busy = nullptr;
  }

 private:
  std::shared_ptr<NonblockingSlot> slot_;  // holds the lane the call runs on
  std::unique_ptr<CallBuffers> buffers_;
};

// The slot of this key on the lane the communicator's next served call takes (context.hpp): the
// lane is built by the first call that takes it, the key's Runner there by the key's first call,
// on the layout of `buffers` (every call of a key has the same).
std::shared_ptr<NonblockingSlot> take_slot(InterState& state, MPI_Comm comm, Plan<NonblockingSlots>& plan,
                                           const CallBuffers& buffers) {
  const std::size_t i = state.nonblocking_calls++ % kNonblockingSlots;
  if (i == state.lanes.size()) state.lanes.push_back(std::make_shared<Lane>(comm));
  NonblockingSlots& s = *plan.args;
  if (s.slots.size() <= i) s.slots.resize(i + 1);
  if (!s.slots[i]) {
    auto slot = std::make_shared<NonblockingSlot>();
    slot->lane = state.lanes[i];
    slot->args = buffers.layout();
    slot->runner = prepare(plan.algorithm, slot->lane->pair, slot->args, CallForm::Nonblocking);
    s.slots[i] = std::move(slot);
  }
  return s.slots[i];
}

// A new nonblocking plan: the choice for `shape`; its slots are built by the calls.
std::unique_ptr<Plan<NonblockingSlots>> nonblocking_plan(Collective c, const inter::Shape& shape) {
  auto made = std::make_unique<Plan<NonblockingSlots>>();
  made->algorithm = choose(c, shape, CallForm::Nonblocking);
  made->args = std::make_unique<NonblockingSlots>();
  return made;
}

// The served call started, behind a request the library owns.
MPI_Request start_nonblocking(Context& ctx, MPI_Comm comm, Plan<NonblockingSlots>& plan,
                              std::unique_ptr<CallBuffers> buffers, const char* name) {
  auto slot = take_slot(*ctx.inter, comm, plan, *buffers);
  auto call = std::make_unique<NonblockingCall>(std::move(slot), std::move(buffers));
  call->start();
  return own_request(std::move(call), false, name, comm);
}

int serve_iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                     MPI_Comm comm, MPI_Request* request) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  const std::size_t mine = block_bytes(scount, stype), theirs = block_bytes(rcount, rtype);
  InterKey key{Collective::Allgather, mine, {theirs}, {}};
  Plan<NonblockingSlots>* plan = ctx.inter->iallgather.find(key);
  if (!plan)
    plan = &ctx.inter->iallgather.insert(
        std::move(key), nonblocking_plan(Collective::Allgather, allgather_shape(pair, mine, theirs)));
  count_served(Collective::Allgather, plan->algorithm, CallForm::Nonblocking);
  if (!plan->algorithm) return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
  *request = start_nonblocking(
      ctx, comm, *plan, std::make_unique<CallBuffers>(pair, sbuf, scount, stype, rbuf, rcount, rtype, theirs),
      "MPI_Iallgather");
  return MPI_SUCCESS;
}

// As the blocking call: the sizes differ between processes, so one MPI_Allreduce per call checks
// that every process still has its plan (one plan is kept), and on a miss the sizes are gathered
// and every process chooses again. So each call synchronizes both groups.
int serve_iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                      const int* rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  auto buffers = std::make_unique<CallBuffers>(pair, sbuf, scount, stype, rbuf, rcounts, rdispls, rtype);
  InterKey key{Collective::Allgatherv, buffers->send.counts()[0], buffers->recv.counts(), buffers->recv.displs()};
  Plan<NonblockingSlots>* plan = ctx.inter->iallgatherv.find(key);
  int miss = plan ? 0 : 1, any_miss = 0;
  check(PMPI_Allreduce(&miss, &any_miss, 1, MPI_INT, MPI_MAX, pair.both()), "MPI_Allreduce");
  if (any_miss) {
    const inter::Shape shape = gather_shape(pair, key.send_bytes);
    plan = &ctx.inter->iallgatherv.insert(std::move(key), nonblocking_plan(Collective::Allgatherv, shape));
  }
  count_served(Collective::Allgatherv, plan->algorithm, CallForm::Nonblocking);
  if (!plan->algorithm) return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm, request);
  *request = start_nonblocking(ctx, comm, *plan, std::move(buffers), "MPI_Iallgatherv");
  return MPI_SUCCESS;
}

// The choice needs no communication (the shape is global); the persistent form's init is
// collective over both groups, as the application's init call is.
int serve_allgather_init(const char* name, AllgatherInit library, const void* sbuf, int scount, MPI_Datatype stype,
                         void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  const std::size_t mine = block_bytes(scount, stype), theirs = block_bytes(rcount, rtype);
  const Algorithm* algorithm =
      choose(Collective::Allgather, allgather_shape(pair, mine, theirs), CallForm::Persistent);
  count_served(Collective::Allgather, algorithm, CallForm::Persistent);
  if (!algorithm) return library(sbuf, scount, stype, rbuf, rcount, rtype, comm, info, request);
  auto buffers = std::make_unique<CallBuffers>(pair, sbuf, scount, stype, rbuf, rcount, rtype, theirs);
  *request = own_request(std::make_unique<PersistentCall>(comm, Collective::Allgather, algorithm, std::move(buffers)),
                         true, name, comm);
  return MPI_SUCCESS;
}

// The sizes are gathered at init (collective over both groups, as the init is) for the choice.
int serve_allgatherv_init(const char* name, AllgathervInit library, const void* sbuf, int scount,
                          MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  Context& ctx = inter_context(comm);
  const GroupPair& pair = ctx.inter->pair;
  auto buffers = std::make_unique<CallBuffers>(pair, sbuf, scount, stype, rbuf, rcounts, rdispls, rtype);
  const Algorithm* algorithm =
      choose(Collective::Allgatherv, gather_shape(pair, buffers->send.counts()[0]), CallForm::Persistent);
  count_served(Collective::Allgatherv, algorithm, CallForm::Persistent);
  if (!algorithm) return library(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm, info, request);
  *request = own_request(std::make_unique<PersistentCall>(comm, Collective::Allgatherv, algorithm, std::move(buffers)),
                         true, name, comm);
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

extern "C" int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                              MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  if (!intercepting() || !is_intercomm(comm))
    return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
  return guarded("MPI_Iallgather", comm,
                 [&] { return serve_iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request); });
}

extern "C" int MPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                               const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  if (!intercepting() || !is_intercomm(comm))
    return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm, request);
  return guarded("MPI_Iallgatherv", comm, [&] {
    return serve_iallgatherv(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm, request);
  });
}

int collrepro::pmpi::allgather_init_call(const char* name, AllgatherInit library, const void* sbuf, int scount,
                                         MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                                         MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (!intercepting() || !is_intercomm(comm))
    return library(sbuf, scount, stype, rbuf, rcount, rtype, comm, info, request);
  return guarded(name, comm, [&] {
    return serve_allgather_init(name, library, sbuf, scount, stype, rbuf, rcount, rtype, comm, info, request);
  });
}

int collrepro::pmpi::allgatherv_init_call(const char* name, AllgathervInit library, const void* sbuf, int scount,
                                          MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[],
                                          MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (!intercepting() || !is_intercomm(comm))
    return library(sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm, info, request);
  return guarded(name, comm, [&] {
    return serve_allgatherv_init(name, library, sbuf, scount, stype, rbuf, rcounts, rdispls, rtype, comm, info,
                                 request);
  });
}

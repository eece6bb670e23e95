// MPI_Neighbor_* baselines of the isomorphic family; see neighbor_collective.hpp.
#include "neighbor_collective.hpp"

#include <deque>
#include <map>
#include <numeric>
#include <stdexcept>

#include "collrepro/capabilities.hpp"
#include "collrepro/persistent.hpp"

namespace collrepro::iso {
namespace {

enum class Call { Alltoall, Alltoallv, Alltoallw };

std::vector<int> ints(const std::vector<std::size_t>& v, const std::vector<int>& order, const char* what) {
  std::vector<int> out;
  for (int i : order) out.push_back(mpi_count(v[static_cast<std::size_t>(i)], what));
  return out;
}

std::vector<MPI_Aint> aints(const std::vector<std::size_t>& v, const std::vector<int>& order) {
  std::vector<MPI_Aint> out;
  for (int i : order) out.push_back(static_cast<MPI_Aint>(v[static_cast<std::size_t>(i)]));
  return out;
}

bool identity(const std::vector<int>& v) {
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] != static_cast<int>(k)) return false;
  return true;
}

// True on every process of the graph iff `mine` is true on all of them.
bool everywhere(bool mine, const NeighborGraph& g) {
  int in = mine ? 1 : 0, all = 0;
  check(MPI_Allreduce(&in, &all, 1, MPI_INT, MPI_MIN, g.comm.get()), "MPI_Allreduce");
  return all == 1;
}

// The library's pairing of edges under `call`: out-edge k sends the int out_block[k]; in-edge l
// receives the index of the block it carries. Checked against the sources of the neighbourhood.
std::vector<int> probe_pairing(const NeighborGraph& g, Call call, const IsoComm& comm) {
  const auto in = static_cast<int>(g.in_ranks.size());
  std::vector<int> send = g.out_block, recv(g.in_ranks.size() + 1, -1);
  std::vector<int> ones_out(send.size(), 1), ones_in(g.in_ranks.size(), 1), sdispls(send.size()),
      rdispls(ones_in.size());
  std::iota(sdispls.begin(), sdispls.end(), 0);
  std::iota(rdispls.begin(), rdispls.end(), 0);
  std::vector<MPI_Aint> sbytes(send.size()), rbytes(ones_in.size());
  for (std::size_t k = 0; k < sbytes.size(); ++k) sbytes[k] = static_cast<MPI_Aint>(k * sizeof(int));
  for (std::size_t l = 0; l < rbytes.size(); ++l) rbytes[l] = static_cast<MPI_Aint>(l * sizeof(int));
  const std::vector<MPI_Datatype> stypes(send.size(), MPI_INT), rtypes(ones_in.size(), MPI_INT);
  send.push_back(-1);  // never a zero-length array
  switch (call) {
    case Call::Alltoall:
      check(MPI_Neighbor_alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, g.comm.get()),
            "MPI_Neighbor_alltoall");
      break;
    case Call::Alltoallv:
      check(MPI_Neighbor_alltoallv(send.data(), ones_out.data(), sdispls.data(), MPI_INT, recv.data(), ones_in.data(),
                                   rdispls.data(), MPI_INT, g.comm.get()),
            "MPI_Neighbor_alltoallv");
      break;
    case Call::Alltoallw:
      check(MPI_Neighbor_alltoallw(send.data(), ones_out.data(), sbytes.data(), stypes.data(), recv.data(),
                                   ones_in.data(), rbytes.data(), rtypes.data(), g.comm.get()),
            "MPI_Neighbor_alltoallw");
      break;
  }
  recv.resize(static_cast<std::size_t>(in));
  std::vector<bool> seen(recv.size(), false);
  for (std::size_t l = 0; l < recv.size(); ++l) {
    const int b = recv[l];
    if (b < 0 || b >= in || seen[static_cast<std::size_t>(b)] ||
        comm.sources()[static_cast<std::size_t>(b)] != g.in_ranks[l])
      throw MpiError("the MPI library paired the graph's edges inconsistently (in-edge " + std::to_string(l) +
                     " received block " + std::to_string(b) + ")");
    seen[static_cast<std::size_t>(b)] = true;
  }
  return recv;
}

// One neighbourhood call with its arguments, in any call form: blocking (request unused),
// nonblocking (MPI_Ineighbor_*) or persistent (the *_init call, collrepro/persistent.hpp).
class NeighborCall : public Runner {
 public:
  void run() override { issue(CallForm::Blocking, nullptr); }
  // Makes the call in `form`; throws MpiError naming the call on an error.
  virtual void issue(CallForm form, MPI_Request* request) const = 0;
};

// The nonblocking call (posted at each start) or the persistent one (built here, started at
// each start) of a NeighborCall.
class NeighborStarted final : public StartedRunner {
 public:
  NeighborStarted(std::unique_ptr<NeighborCall> call, CallForm form)
      : call_(std::move(call)), persistent_(form == CallForm::Persistent) {
    if (persistent_) call_->issue(CallForm::Persistent, &request_);
  }
  ~NeighborStarted() override {
    if (request_ == MPI_REQUEST_NULL) return;
    if (active_) MPI_Wait(&request_, MPI_STATUS_IGNORE);
    if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  }
  NeighborStarted(const NeighborStarted&) = delete;
  NeighborStarted& operator=(const NeighborStarted&) = delete;

  void start() override {
    if (persistent_)
      check(MPI_Start(&request_), "MPI_Start (neighbourhood collective)");
    else
      call_->issue(CallForm::Nonblocking, &request_);
    active_ = true;
  }
  void wait() override {
    active_ = false;
    check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait (neighbourhood collective)");
  }

 private:
  std::unique_ptr<NeighborCall> call_;
  bool persistent_;
  bool active_ = false;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// The MPI name of `blocking` in `form`: "MPI_Neighbor_x", "MPI_Ineighbor_x" or "x_init".
std::string call_name(CallForm form, const std::string& x) {
  if (form == CallForm::Nonblocking) return "MPI_Ineighbor_" + x;
  if (form == CallForm::Persistent) return std::string("persistent Neighbor_") + x + " (" +
                                           persistent_neighbor_collectives() + ")";
  return "MPI_Neighbor_" + x;
}

class NeighborAlltoall final : public NeighborCall {
 public:
  NeighborAlltoall(NeighborGraph g, const Args& a, const IsoComm& comm) : g_(std::move(g)), a_(a) {
    plain_ =
        everywhere(a.regular(m_) && identity(g_.out_block) && identity(probe_pairing(g_, Call::Alltoall, comm)), g_);
    const auto in_block = plain_ ? g_.out_block : probe_pairing(g_, Call::Alltoallv, comm);
    scounts_ = ints(a.send_counts, g_.out_block, "MPI_Neighbor_alltoall count");
    sdispls_ = ints(a.send_displs, g_.out_block, "MPI_Neighbor_alltoallv displacement");
    rcounts_ = ints(a.recv_counts, in_block, "MPI_Neighbor_alltoall count");
    rdispls_ = ints(a.recv_displs, in_block, "MPI_Neighbor_alltoallv displacement");
  }
  void issue(CallForm form, MPI_Request* r) const override {
    const MPI_Comm c = g_.comm.get();
    if (plain_) {
      const int m = static_cast<int>(m_);
      check(form == CallForm::Nonblocking  ? MPI_Ineighbor_alltoall(a_.send, m, MPI_BYTE, a_.recv, m, MPI_BYTE, c, r)
            : form == CallForm::Persistent ? neighbor_alltoall_init(a_.send, m, MPI_BYTE, a_.recv, m, MPI_BYTE, c, r)
                                           : MPI_Neighbor_alltoall(a_.send, m, MPI_BYTE, a_.recv, m, MPI_BYTE, c),
            call_name(form, "alltoall").c_str());
      return;
    }
    const int *sc = scounts_.data(), *sd = sdispls_.data(), *rc = rcounts_.data(), *rd = rdispls_.data();
    check(form == CallForm::Nonblocking
              ? MPI_Ineighbor_alltoallv(a_.send, sc, sd, MPI_BYTE, a_.recv, rc, rd, MPI_BYTE, c, r)
          : form == CallForm::Persistent
              ? neighbor_alltoallv_init(a_.send, sc, sd, MPI_BYTE, a_.recv, rc, rd, MPI_BYTE, c, r)
              : MPI_Neighbor_alltoallv(a_.send, sc, sd, MPI_BYTE, a_.recv, rc, rd, MPI_BYTE, c),
          call_name(form, "alltoallv").c_str());
  }

 private:
  NeighborGraph g_;
  const Args& a_;
  std::size_t m_ = 0;
  bool plain_ = false;
  std::vector<int> scounts_, sdispls_, rcounts_, rdispls_;
};

// Every edge from one source carries the same block, so the pairing of repeated edges does not
// matter: in-edge l may fill any block whose source is its rank.
class NeighborAllgather final : public NeighborCall {
 public:
  NeighborAllgather(NeighborGraph g, const Args& a, const IsoComm& comm) : g_(std::move(g)), a_(a) {
    const auto in_block = match_neighbors(g_.in_ranks, comm.sources());
    plain_ = everywhere(a.regular(m_) && identity(in_block), g_);
    count_ = mpi_count(a.send_counts.front(), "MPI_Neighbor_allgather count");
    rcounts_ = ints(a.recv_counts, in_block, "MPI_Neighbor_allgather count");
    rdispls_ = ints(a.recv_displs, in_block, "MPI_Neighbor_allgatherv displacement");
  }
  void issue(CallForm form, MPI_Request* r) const override {
    const std::byte* send = a_.send + a_.send_displs.front();
    const MPI_Comm c = g_.comm.get();
    const int n = count_;
    if (plain_) {
      check(form == CallForm::Nonblocking  ? MPI_Ineighbor_allgather(send, n, MPI_BYTE, a_.recv, n, MPI_BYTE, c, r)
            : form == CallForm::Persistent ? neighbor_allgather_init(send, n, MPI_BYTE, a_.recv, n, MPI_BYTE, c, r)
                                           : MPI_Neighbor_allgather(send, n, MPI_BYTE, a_.recv, n, MPI_BYTE, c),
            call_name(form, "allgather").c_str());
      return;
    }
    const int *rc = rcounts_.data(), *rd = rdispls_.data();
    check(form == CallForm::Nonblocking  ? MPI_Ineighbor_allgatherv(send, n, MPI_BYTE, a_.recv, rc, rd, MPI_BYTE, c, r)
          : form == CallForm::Persistent ? neighbor_allgatherv_init(send, n, MPI_BYTE, a_.recv, rc, rd, MPI_BYTE, c, r)
                                         : MPI_Neighbor_allgatherv(send, n, MPI_BYTE, a_.recv, rc, rd, MPI_BYTE, c),
          call_name(form, "allgatherv").c_str());
  }

 private:
  NeighborGraph g_;
  const Args& a_;
  std::size_t m_ = 0;
  bool plain_ = false;
  int count_ = 0;
  std::vector<int> rcounts_, rdispls_;
};

class NeighborAlltoallw final : public NeighborCall {
 public:
  NeighborAlltoallw(NeighborGraph g, const Args& a, const IsoComm& comm) : g_(std::move(g)), a_(a) {
    const auto in_block = probe_pairing(g_, Call::Alltoallw, comm);
    scounts_ = ints(a.send_counts, g_.out_block, "MPI_Neighbor_alltoallw count");
    rcounts_ = ints(a.recv_counts, in_block, "MPI_Neighbor_alltoallw count");
    sdispls_ = aints(a.send_displs, g_.out_block);
    rdispls_ = aints(a.recv_displs, in_block);
    stypes_.assign(scounts_.size(), MPI_BYTE);
    rtypes_.assign(rcounts_.size(), MPI_BYTE);
  }
  void issue(CallForm form, MPI_Request* r) const override {
    const MPI_Comm c = g_.comm.get();
    const int *sc = scounts_.data(), *rc = rcounts_.data();
    const MPI_Aint *sd = sdispls_.data(), *rd = rdispls_.data();
    const MPI_Datatype *st = stypes_.data(), *rt = rtypes_.data();
    check(form == CallForm::Nonblocking  ? MPI_Ineighbor_alltoallw(a_.send, sc, sd, st, a_.recv, rc, rd, rt, c, r)
          : form == CallForm::Persistent ? neighbor_alltoallw_init(a_.send, sc, sd, st, a_.recv, rc, rd, rt, c, r)
                                         : MPI_Neighbor_alltoallw(a_.send, sc, sd, st, a_.recv, rc, rd, rt, c),
          call_name(form, "alltoallw").c_str());
  }

 private:
  NeighborGraph g_;
  const Args& a_;
  std::vector<int> scounts_, rcounts_;
  std::vector<MPI_Aint> sdispls_, rdispls_;
  std::vector<MPI_Datatype> stypes_, rtypes_;
};

}  // namespace

std::vector<int> match_neighbors(const std::vector<int>& graph, const std::vector<int>& ranks) {
  if (graph.size() != ranks.size())
    throw MpiError("the graph communicator has " + std::to_string(graph.size()) + " neighbours, expected " +
                   std::to_string(ranks.size()));
  std::map<int, std::deque<int>> indices;
  for (std::size_t i = 0; i < ranks.size(); ++i) indices[ranks[i]].push_back(static_cast<int>(i));
  std::vector<int> out;
  for (int r : graph) {
    auto& q = indices[r];
    if (q.empty()) throw MpiError("the graph communicator lists rank " + std::to_string(r) + " too often");
    out.push_back(q.front());
    q.pop_front();
  }
  return out;
}

namespace {

bool labelled_dist_graph(const Comm& graph, const Capabilities& caps) {
  if (!caps.topo_test) return true;  // no way to ask; nothing to repair
  int topology = MPI_UNDEFINED;
  check(MPI_Topo_test(graph.get(), &topology), "MPI_Topo_test");
  return topology == MPI_DIST_GRAPH;
}

}  // namespace

Comm checked_dist_graph(const IsoComm& comm, GraphConstructor construct) {
  Comm graph(construct(comm.comm(), comm));
  if (labelled_dist_graph(graph, comm.capabilities())) return graph;
  graph.reset();
  const Comm plain = Comm::split(comm.comm(), 0, comm.rank());
  graph = Comm(construct(plain.get(), comm));
  if (!labelled_dist_graph(graph, comm.capabilities()))
    throw MpiError("the MPI library does not label a new distributed-graph communicator MPI_DIST_GRAPH, not even "
                   "on a communicator without a topology");
  return graph;
}

NeighborGraph describe_graph(Comm graph, const IsoComm& comm) {
  int indegree = 0, outdegree = 0, weighted = 0;
  check(MPI_Dist_graph_neighbors_count(graph.get(), &indegree, &outdegree, &weighted),
        "MPI_Dist_graph_neighbors_count");
  NeighborGraph g{std::move(graph),
                  std::vector<int>(static_cast<std::size_t>(outdegree)),
                  std::vector<int>(static_cast<std::size_t>(indegree)),
                  {}};
  std::vector<int> in_w(g.in_ranks.size() + 1), out_w(g.out_ranks.size() + 1), in(g.in_ranks.size() + 1),
      out(g.out_ranks.size() + 1);
  check(MPI_Dist_graph_neighbors(g.comm.get(), indegree, in.data(), in_w.data(), outdegree, out.data(), out_w.data()),
        "MPI_Dist_graph_neighbors");
  std::copy_n(in.begin(), indegree, g.in_ranks.begin());
  std::copy_n(out.begin(), outdegree, g.out_ranks.begin());
  g.out_block = match_neighbors(g.out_ranks, comm.targets());
  if (g.in_ranks.size() != comm.sources().size())
    throw MpiError("the graph communicator has " + std::to_string(indegree) + " in-neighbours, expected " +
                   std::to_string(comm.sources().size()));
  return g;
}

Cost NeighborAlgorithm::cost(const Shape& shape) const {
  const auto m = shape.block_bytes();
  return {static_cast<double>(m.size()), static_cast<double>(std::accumulate(m.begin(), m.end(), std::size_t{0}))};
}

Support NeighborAlgorithm::supports_shape(const Shape&, const Capabilities& caps) const {
  if (!caps.dist_graph) return Support::no("needs MPI_Dist_graph_create* and MPI_Neighbor_* (unavailable here)");
  return Support::yes();
}

namespace {

std::unique_ptr<NeighborCall> neighbor_call(Collective collective, NeighborGraph g, const Args& args,
                                            const IsoComm& comm) {
  switch (collective) {
    case Collective::NeighborAlltoall: return std::make_unique<NeighborAlltoall>(std::move(g), args, comm);
    case Collective::NeighborAllgather: return std::make_unique<NeighborAllgather>(std::move(g), args, comm);
    case Collective::NeighborAlltoallw: return std::make_unique<NeighborAlltoallw>(std::move(g), args, comm);
    default: throw std::logic_error("NeighborAlgorithm: not a neighbourhood collective");
  }
}

}  // namespace

std::unique_ptr<Runner> NeighborAlgorithm::prepare(const IsoComm& comm, const Args& args) const {
  args.validate(info().collective, comm.neighborhood().size());
  return neighbor_call(info().collective, build_(comm), args, comm);
}

std::vector<CallForm> NeighborAlgorithm::calls() const { return every_call_form(); }

Support NeighborAlgorithm::supports_call(CallForm form, const Capabilities& caps) const {
  if ((form == CallForm::Nonblocking && !caps.neighbor_nonblocking) ||
      (form == CallForm::Persistent && !caps.neighbor_persistent))
    return Support::no("this MPI library's " + std::string(to_string(form)) +
                       " neighbourhood call failed the probe (" + caps.calls_reason + ")");
  return Support::yes();
}

std::unique_ptr<Runner> NeighborAlgorithm::prepare_call(const IsoComm& comm, const Args& args, CallForm form) const {
  if (form == CallForm::Blocking) return prepare(comm, args);
  args.validate(info().collective, comm.neighborhood().size());
  return std::make_unique<NeighborStarted>(neighbor_call(info().collective, build_(comm), args, comm), form);
}

}  // namespace collrepro::iso

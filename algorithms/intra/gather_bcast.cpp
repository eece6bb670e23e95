// gather-bcast: the Allgather(v) mock-up of the performance guidelines: gather every block
// at rank 0 (MPI_Gather / MPI_Gatherv), then broadcast the whole result (MPI_Bcast). A
// native MPI_Allgather(v) slower than this mock-up violates the guideline its registration
// names (mock_up_of; seed 002 §3.4; Hunold and Träff's PGMPI).
//
// Cost (binomial gather, binomial bcast of the K-byte result):
//   2 ceil(log2 n) alpha + (K - k_0 + ceil(log2 n) K) beta.
// Cases: every shape whose counts fit an MPI int; the result lands in the user's receive
//   buffer directly (rank 0 gathers in place, then broadcasts it).
// Errata: none (no paper pseudocode). Executor: this file. Documentation:
//   docs/algorithms/gather-bcast.md.
// Forms: blocking; nonblocking and persistent as two rounds of collrepro/started_rounds.hpp (the
//   Gather(v), then the Bcast once it completed: MPI_Igatherv and MPI_Ibcast, or their persistent
//   inits, posted nonblocking at each start where the probe found the library's persistent
//   sub-collectives wrong), as the native forms it is compared with.
#include "collrepro/intra.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/started_rounds.hpp"

namespace collrepro::intra {
namespace {

constexpr int kRoot = 0;

// The MPI counts of the two calls: the Gatherv's per rank, and the Bcast's whole result.
struct Counts {
  explicit Counts(const Args& args) {
    std::size_t extent = 0;
    for (std::size_t j = 0; j < args.recv_counts.size(); ++j) {
      gather.push_back(mpi_count(args.recv_counts[j], "MPI_Gatherv receive count"));
      displs.push_back(mpi_count(args.recv_displs[j], "MPI_Gatherv displacement"));
      extent = std::max(extent, args.recv_displs[j] + args.recv_counts[j]);
    }
    send = mpi_count(args.send_bytes, "MPI_Gatherv send count");
    bcast = mpi_count(extent, "MPI_Bcast count");
  }
  std::vector<int> gather, displs;
  int send = 0, bcast = 0;
};

class GatherBcastRunner final : public Runner {
 public:
  GatherBcastRunner(MPI_Comm comm, const Args& args) : comm_(comm), args_(args), n_(args) {}
  void run() override {
    check(MPI_Gatherv(args_.send, n_.send, MPI_BYTE, args_.recv, n_.gather.data(), n_.displs.data(), MPI_BYTE, kRoot,
                      comm_),
          "MPI_Gatherv");
    check(MPI_Bcast(args_.recv, n_.bcast, MPI_BYTE, kRoot, comm_), "MPI_Bcast");
  }

 private:
  MPI_Comm comm_;
  const Args& args_;
  Counts n_;
};

// The same two calls as two rounds: the Bcast starts when the Gather(v) has completed.
class GatherBcastStarted final : public StartedRunner {
 public:
  GatherBcastStarted(MPI_Comm comm, const Args& args, CallForm form, const Capabilities& caps)
      : args_(args), n_(args), rounds_(form, caps) {
    rounds_.next_round();
    rounds_.gatherv([this] { return static_cast<const void*>(args_.send); }, [this] { return n_.send; }, MPI_BYTE, [this] { return static_cast<void*>(args_.recv); },
                    n_.gather, n_.displs, kRoot, comm, "gather");
    rounds_.next_round();
    rounds_.bcast([this] { return static_cast<void*>(args_.recv); }, [this] { return n_.bcast; }, MPI_BYTE, kRoot, comm,
                  "broadcast of the result");
  }
  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  const Args& args_;
  Counts n_;
  StartedRounds rounds_;  // last: its requests read the members above
};

class GatherBcast : public IntraAlgorithm {
 public:
  explicit GatherBcast(Collective c)
      : IntraAlgorithm({"gather-bcast", c, Topology::FullyConnected, Kind::Baseline,
                        "performance-guideline mock-up: MPI_Gather(v) to rank 0, then MPI_Bcast of the result",
                        "2 ceil(log2 n) alpha + (K - k_0 + ceil(log2 n) K) beta",
                        {{"native"}, "MPI_Allgather(v) <= MPI_Gather(v) + MPI_Bcast"}}) {}
  Cost cost(const Shape& s) const override {
    const double k = static_cast<double>(s.total());
    return {2 * s.log_n(), k - static_cast<double>(s.blocks.front()) + s.log_n() * k};
  }
  std::unique_ptr<Runner> prepare(MPI_Comm comm, const Args& args) const override {
    return std::make_unique<GatherBcastRunner>(comm, args);
  }
  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(MPI_Comm comm, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(comm, args);
    return std::make_unique<GatherBcastStarted>(comm, args, form, caps);
  }
};

struct GatherBcastAllgather final : GatherBcast { GatherBcastAllgather() : GatherBcast(Collective::IntraAllgather) {} };
struct GatherBcastAllgatherv final : GatherBcast { GatherBcastAllgatherv() : GatherBcast(Collective::IntraAllgatherv) {} };

COLLREPRO_REGISTER(GatherBcastAllgather);
COLLREPRO_REGISTER(GatherBcastAllgatherv);

}  // namespace
}  // namespace collrepro::intra

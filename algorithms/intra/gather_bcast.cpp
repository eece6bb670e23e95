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
#include "collrepro/intra.hpp"
#include "collrepro/mpi.hpp"

namespace collrepro::intra {
namespace {

class GatherBcastRunner final : public Runner {
 public:
  GatherBcastRunner(MPI_Comm comm, const Args& args) : comm_(comm), args_(args) {
    for (std::size_t j = 0; j < args.recv_counts.size(); ++j) {
      counts_.push_back(mpi_count(args.recv_counts[j], "MPI_Gatherv receive count"));
      displs_.push_back(mpi_count(args.recv_displs[j], "MPI_Gatherv displacement"));
      extent_ = std::max(extent_, args.recv_displs[j] + args.recv_counts[j]);
    }
    send_count_ = mpi_count(args.send_bytes, "MPI_Gatherv send count");
    bcast_count_ = mpi_count(extent_, "MPI_Bcast count");
  }
  void run() override {
    check(MPI_Gatherv(args_.send, send_count_, MPI_BYTE, args_.recv, counts_.data(), displs_.data(), MPI_BYTE, kRoot,
                      comm_),
          "MPI_Gatherv");
    check(MPI_Bcast(args_.recv, bcast_count_, MPI_BYTE, kRoot, comm_), "MPI_Bcast");
  }

 private:
  static constexpr int kRoot = 0;
  MPI_Comm comm_;
  const Args& args_;
  std::vector<int> counts_, displs_;
  std::size_t extent_ = 0;
  int send_count_ = 0, bcast_count_ = 0;
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
};

struct GatherBcastAllgather final : GatherBcast { GatherBcastAllgather() : GatherBcast(Collective::IntraAllgather) {} };
struct GatherBcastAllgatherv final : GatherBcast { GatherBcastAllgatherv() : GatherBcast(Collective::IntraAllgatherv) {} };

COLLREPRO_REGISTER(GatherBcastAllgather);
COLLREPRO_REGISTER(GatherBcastAllgatherv);

}  // namespace
}  // namespace collrepro::intra

// native: the MPI library's own MPI_Allgather / MPI_Allgatherv on a real intercommunicator.
// Details: docs/algorithms/native.md (the same name covers the intra-communicator calls).
//
// Source: MPI-3.1 §5 (intercommunicator collectives); the "Root Gathering" series of
//   seed 001 Figs. 4-6 and the reference of seed 000 §V.
// Cost: what the library does. Open MPI (coll/inter): local gather, one root sendrecv,
//   local bcast; MPICH: local gather, two sequential intercommunicator bcasts (Allgather) or
//   remote gatherv + local indexed bcast (Allgatherv). The registry reports the MPICH
//   production model of seed 001 Eq. (2):
//     (2 + 2 log p + log q) t_s + (max((p-1)k_A, (q-1)k_B) + 3 p k_A + 3 q k_B) t_w.
// Cases: every shape, half-duplex included (zero counts in one direction).
// Plan and executor: this file (one library call). Errata: none (no pseudocode).
// Needs: a real intercommunicator; the intracommunicator-only GroupPair (e.g. SimGrid)
//   is rejected through supports().
#include <cmath>

#include "collrepro/intergroup.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

class NativeAllgather final : public Runner {
 public:
  NativeAllgather(MPI_Comm inter, const Args& args) : inter_(inter), args_(args) {
    send_count_ = mpi_count(args.send_bytes, "MPI_Allgather send count");
    recv_count_ = mpi_count(args.recv_block(), "MPI_Allgather receive count");
  }
  void run() override {
    check(MPI_Allgather(args_.send, send_count_, MPI_BYTE, args_.recv, recv_count_, MPI_BYTE, inter_),
          "MPI_Allgather (intercommunicator)");
  }

 private:
  MPI_Comm inter_;
  const Args& args_;
  int send_count_ = 0, recv_count_ = 0;
};

class NativeAllgatherv final : public Runner {
 public:
  NativeAllgatherv(MPI_Comm inter, const Args& args)
      : inter_(inter), args_(args),
        counts_(to_int_counts(args.recv_counts, "MPI_Allgatherv receive count")),
        displs_(to_int_counts(args.recv_displs, "MPI_Allgatherv displacement")) {
    send_count_ = mpi_count(args.send_bytes, "MPI_Allgatherv send count");
  }
  void run() override {
    check(MPI_Allgatherv(args_.send, send_count_, MPI_BYTE, args_.recv, counts_.data(), displs_.data(), MPI_BYTE,
                         inter_),
          "MPI_Allgatherv (intercommunicator)");
  }

 private:
  MPI_Comm inter_;
  const Args& args_;
  std::vector<int> counts_, displs_;
  int send_count_ = 0;
};

class Native : public InterAlgorithm {
 public:
  explicit Native(Collective c)
      : InterAlgorithm({"native", c, "fully-connected", Kind::Native, "MPI-3.1 §5, intercommunicator " +
                            std::string(c == Collective::Allgather ? "MPI_Allgather" : "MPI_Allgatherv"),
                        "library-defined; modelled as seed 001 Eq. (2)"}) {}

  Support supports(const Shape&, PairMode mode) const override {
    if (mode != PairMode::Intercomm)
      return Support::no("needs a real intercommunicator (MPI_Intercomm_create); this run uses one intracommunicator");
    return Support::yes();
  }
  Cost cost(const Shape& s) const override { return production_root_gathering_cost(s); }
  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    if (info().collective == Collective::Allgather) return std::make_unique<NativeAllgather>(pair.intercomm(), args);
    return std::make_unique<NativeAllgatherv>(pair.intercomm(), args);
  }
};

struct NativeAllgatherAlgo final : Native { NativeAllgatherAlgo() : Native(Collective::Allgather) {} };
struct NativeAllgathervAlgo final : Native { NativeAllgathervAlgo() : Native(Collective::Allgatherv) {} };

COLLREPRO_REGISTER(NativeAllgatherAlgo);
COLLREPRO_REGISTER(NativeAllgathervAlgo);

}  // namespace
}  // namespace collrepro::inter

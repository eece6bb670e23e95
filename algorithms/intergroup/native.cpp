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
// Call forms: blocking; nonblocking (MPI_Iallgather(v) + MPI_Wait); persistent
//   (MPI_Allgather(v)_init at init, or Open MPI 4.1's MPIX_ one: collrepro/persistent.hpp; then
//   MPI_Start + MPI_Wait). The library's forms are probed at run time (capabilities.hpp): a form
//   that is missing or gave a wrong result there is skipped with the probe's reason.
// Plan and executor: this file (one library call). Errata: none (no pseudocode).
// Needs: a real intercommunicator; the intracommunicator-only GroupPair (e.g. SimGrid)
//   is rejected through supports().
#include <cmath>

#include "collrepro/intergroup.hpp"
#include "collrepro/persistent.hpp"
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

// The counts of one intercommunicator MPI_Allgather(v) call, in MPI's int arguments.
struct CallCounts {
  CallCounts(const Args& args, bool v)
      : send(mpi_count(args.send_bytes, "send count")),
        recv(v ? 0 : mpi_count(args.recv_block(), "receive count")),
        counts(v ? to_int_counts(args.recv_counts, "receive count") : std::vector<int>{}),
        displs(v ? to_int_counts(args.recv_displs, "displacement") : std::vector<int>{}) {}
  int send, recv;
  std::vector<int> counts, displs;
};

// MPI_Iallgather(v) at start(), MPI_Wait at wait().
class NativeNonblocking final : public StartedRunner {
 public:
  NativeNonblocking(MPI_Comm inter, const Args& args, bool v) : inter_(inter), args_(args), v_(v), n_(args, v) {}
  void start() override {
    if (v_)
      check(MPI_Iallgatherv(args_.send, n_.send, MPI_BYTE, args_.recv, n_.counts.data(), n_.displs.data(), MPI_BYTE,
                            inter_, &request_),
            "MPI_Iallgatherv (intercommunicator)");
    else
      check(MPI_Iallgather(args_.send, n_.send, MPI_BYTE, args_.recv, n_.recv, MPI_BYTE, inter_, &request_),
            "MPI_Iallgather (intercommunicator)");
  }
  void wait() override { check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait"); }
  ~NativeNonblocking() override {
    if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);
  }

 private:
  MPI_Comm inter_;
  const Args& args_;
  bool v_;
  CallCounts n_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// The library's persistent MPI_Allgather(v)_init at construction; MPI_Start, MPI_Wait per call.
class NativePersistent final : public StartedRunner {
 public:
  NativePersistent(MPI_Comm inter, const Args& args, bool v) : n_(args, v) {
    if (v)
      check(allgatherv_init(args.send, n_.send, MPI_BYTE, args.recv, n_.counts.data(), n_.displs.data(), MPI_BYTE,
                            inter, request_.add()),
            "MPI_Allgatherv_init (intercommunicator)");
    else
      check(allgather_init(args.send, n_.send, MPI_BYTE, args.recv, n_.recv, MPI_BYTE, inter, request_.add()),
            "MPI_Allgather_init (intercommunicator)");
  }
  void start() override { request_.start_all(); }
  void wait() override { request_.wait_all(); }

 private:
  CallCounts n_;  // the library may read the count arrays until the request is freed
  PersistentRequests request_;
};

class Native : public InterAlgorithm {
 public:
  explicit Native(Collective c)
      : InterAlgorithm({"native", c, Topology::FullyConnected, Kind::Native, "MPI-3.1 §5, intercommunicator " +
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

  std::vector<CallForm> calls() const override { return every_call_form(); }
  Support supports_call(CallForm form, const Capabilities& caps) const override {
    if ((form == CallForm::Nonblocking && !caps.inter_nonblocking) || (form == CallForm::Persistent && !caps.inter_persistent))
      return Support::no("this MPI library's " + std::string(to_string(form)) + " intercommunicator call failed the probe (" +
                         caps.calls_reason + ")");
    return Support::yes();
  }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities&) const override {
    const bool v = info().collective == Collective::Allgatherv;
    if (form == CallForm::Nonblocking) return std::make_unique<NativeNonblocking>(pair.intercomm(), args, v);
    if (form == CallForm::Persistent) return std::make_unique<NativePersistent>(pair.intercomm(), args, v);
    return prepare(pair, args);
  }
};

struct NativeAllgatherAlgo final : Native { NativeAllgatherAlgo() : Native(Collective::Allgather) {} };
struct NativeAllgathervAlgo final : Native { NativeAllgathervAlgo() : Native(Collective::Allgatherv) {} };

COLLREPRO_REGISTER(NativeAllgatherAlgo);
COLLREPRO_REGISTER(NativeAllgathervAlgo);

}  // namespace
}  // namespace collrepro::inter

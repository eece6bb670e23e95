// native: the MPI library's own MPI_Allgather, MPI_Allgatherv, MPI_Gather and MPI_Bcast on
// one intracommunicator: the reference of every guideline check of the intra family.
//
// Source: MPI-3.1 §5.5-5.7. Cost: what the library does; the registry reports the textbook
//   tree and doubling algorithms (ceil(log2 n) rounds):
//     allgather(v): ceil(log2 n) alpha + (K - k_min) beta, K the sum of the blocks
//     gather:       ceil(log2 n) alpha + (K - k_root) beta
//     bcast:        ceil(log2 n) (alpha + m beta)
// Cases: every shape whose counts fit an MPI int. Errata: none (no paper pseudocode).
// Forms: blocking; nonblocking (MPI_Iallgather, MPI_Iallgatherv, MPI_Igather, MPI_Ibcast, then
//   MPI_Wait); persistent (MPI_Allgather_init, ... or Open MPI 4.1's MPIX_, started and waited
//   per call), each where the capability probe found the library's form right on the world
//   (intra_nonblocking, intra_native_persistent).
// Executor: this file (one MPI call). Documentation: docs/algorithms/native.md.

#include "collrepro/intra.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/persistent.hpp"

namespace collrepro::intra {
namespace {

std::vector<int> int_counts(const std::vector<std::size_t>& v, const char* what) {
  std::vector<int> out;
  for (std::size_t x : v) out.push_back(mpi_count(x, what));
  return out;
}

class NativeCall final : public Runner {
 public:
  NativeCall(Collective c, MPI_Comm comm, const Args& args)
      : c_(c), comm_(comm), args_(args), counts_(int_counts(args.recv_counts, "receive count")),
        displs_(int_counts(args.recv_displs, "displacement")), send_count_(mpi_count(args.send_bytes, "send count")) {}

  void run() override {
    const int root = args_.root;
    switch (c_) {
      case Collective::IntraAllgather:
        check(MPI_Allgather(args_.send, send_count_, MPI_BYTE, args_.recv, send_count_, MPI_BYTE, comm_), "MPI_Allgather");
        break;
      case Collective::IntraAllgatherv:
        check(MPI_Allgatherv(args_.send, send_count_, MPI_BYTE, args_.recv, counts_.data(), displs_.data(), MPI_BYTE, comm_),
              "MPI_Allgatherv");
        break;
      case Collective::IntraGather:
        check(MPI_Gather(args_.send, send_count_, MPI_BYTE, args_.recv, send_count_, MPI_BYTE, root, comm_), "MPI_Gather");
        break;
      default:
        check(MPI_Bcast(args_.recv, counts_[static_cast<std::size_t>(root)], MPI_BYTE, root, comm_), "MPI_Bcast");
    }
  }

 private:
  Collective c_;
  MPI_Comm comm_;
  const Args& args_;
  std::vector<int> counts_, displs_;
  int send_count_;
};

// The call's request: the I-call at each start() (nonblocking), or the persistent init once
// (persistent, at construction) and MPI_Start at each start().
class NativeStarted final : public StartedRunner {
 public:
  NativeStarted(Collective c, MPI_Comm comm, const Args& args, CallForm form)
      : c_(c), comm_(comm), args_(args), form_(form), counts_(int_counts(args.recv_counts, "receive count")),
        displs_(int_counts(args.recv_displs, "displacement")), send_count_(mpi_count(args.send_bytes, "send count")) {
    if (form_ == CallForm::Persistent) check(make(true, persistent_.add()), "persistent init (intracommunicator)");
  }
  void start() override {
    if (form_ == CallForm::Persistent) return persistent_.start_all();
    check(make(false, posted_.add()), "nonblocking call (intracommunicator)");
  }
  void wait() override {
    if (form_ == CallForm::Persistent) return persistent_.wait_all();
    posted_.wait_all();
  }

 private:
  // The persistent init (`init`) or the nonblocking call of the collective into `r`.
  int make(bool init, MPI_Request* r) {
    const int root = args_.root;
    switch (c_) {
      case Collective::IntraAllgather:
        return init ? allgather_init(args_.send, send_count_, MPI_BYTE, args_.recv, send_count_, MPI_BYTE, comm_, r)
                    : MPI_Iallgather(args_.send, send_count_, MPI_BYTE, args_.recv, send_count_, MPI_BYTE, comm_, r);
      case Collective::IntraAllgatherv:
        return init ? allgatherv_init(args_.send, send_count_, MPI_BYTE, args_.recv, counts_.data(), displs_.data(),
                                      MPI_BYTE, comm_, r)
                    : MPI_Iallgatherv(args_.send, send_count_, MPI_BYTE, args_.recv, counts_.data(), displs_.data(),
                                      MPI_BYTE, comm_, r);
      case Collective::IntraGather:
        return init ? gather_init(args_.send, send_count_, MPI_BYTE, args_.recv, send_count_, MPI_BYTE, root, comm_, r)
                    : MPI_Igather(args_.send, send_count_, MPI_BYTE, args_.recv, send_count_, MPI_BYTE, root, comm_, r);
      default: {
        const int n = counts_[static_cast<std::size_t>(root)];
        return init ? bcast_init(args_.recv, n, MPI_BYTE, root, comm_, r) : MPI_Ibcast(args_.recv, n, MPI_BYTE, root, comm_, r);
      }
    }
  }

  Collective c_;
  MPI_Comm comm_;
  const Args& args_;
  CallForm form_;
  std::vector<int> counts_, displs_;  // the library may read them until the request is freed
  int send_count_;
  PersistentRequests persistent_;
  Requests posted_;
};

const char* call_name(Collective c) {
  switch (c) {
    case Collective::IntraAllgather: return "MPI_Allgather";
    case Collective::IntraAllgatherv: return "MPI_Allgatherv";
    case Collective::IntraGather: return "MPI_Gather";
    default: return "MPI_Bcast";
  }
}

class Native : public IntraAlgorithm {
 public:
  explicit Native(Collective c)
      : IntraAlgorithm({"native", c, Topology::FullyConnected, Kind::Native, std::string("MPI-3.1, ") + call_name(c),
                        "library-defined; modelled as the textbook tree/doubling algorithm"}) {}
  Cost cost(const Shape& s) const override {
    const double root_block = static_cast<double>(s.blocks[static_cast<std::size_t>(s.root)]);
    switch (info().collective) {
      case Collective::IntraGather: return {s.log_n(), static_cast<double>(s.total()) - root_block};
      case Collective::IntraBcast: return {s.log_n(), s.log_n() * root_block};
      default: return lower_bound(s);
    }
  }
  std::unique_ptr<Runner> prepare(MPI_Comm comm, const Args& args) const override {
    return std::make_unique<NativeCall>(info().collective, comm, args);
  }
  std::vector<CallForm> calls() const override { return every_call_form(); }
  Support supports_call(CallForm form, const Capabilities& caps) const override {
    if ((form == CallForm::Nonblocking && !caps.intra_nonblocking) ||
        (form == CallForm::Persistent && !caps.intra_native_persistent))
      return Support::no("this MPI library's " + std::string(to_string(form)) +
                         " intracommunicator call failed the probe (" + caps.calls_reason + ")");
    return Support::yes();
  }
  std::unique_ptr<Runner> prepare_call(MPI_Comm comm, const Args& args, CallForm form,
                                       const Capabilities&) const override {
    if (form == CallForm::Blocking) return prepare(comm, args);
    return std::make_unique<NativeStarted>(info().collective, comm, args, form);
  }
};

struct NativeAllgather final : Native { NativeAllgather() : Native(Collective::IntraAllgather) {} };
struct NativeAllgatherv final : Native { NativeAllgatherv() : Native(Collective::IntraAllgatherv) {} };
struct NativeGather final : Native { NativeGather() : Native(Collective::IntraGather) {} };
struct NativeBcast final : Native { NativeBcast() : Native(Collective::IntraBcast) {} };

COLLREPRO_REGISTER(NativeAllgather);
COLLREPRO_REGISTER(NativeAllgatherv);
COLLREPRO_REGISTER(NativeGather);
COLLREPRO_REGISTER(NativeBcast);

}  // namespace
}  // namespace collrepro::intra

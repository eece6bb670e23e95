// collbench with test-only inter-group Allgathers registered beside the real ones. Two run the
// native MPI_Allgather and then:
//   test-corrupt-byte  flips byte 3 of the result: a validation failure must be a loud error
//                      (exit 3) naming the algorithm, point, rank and byte, with nothing of it
//                      written as a timing row (errors.sh);
//   test-slow          sleeps 40 ms: a sweep of it takes a known minimum time per point, so
//                      resume_kill.sh and sigterm.sh can interrupt it mid-sweep on any machine
//                      (a sweep of real algorithms at small sizes may finish before the kill).
// Two are nonblocking calls whose overlap is known (overlap.sh): both post the native
// MPI_Iallgather at start() and add 200 ms of "transfer", a wait on the clock:
//   test-overlap-full  the 200 ms run from start(), as on a network that progresses alone: a
//                      rank that computes after its start finds them spent (overlap near 100 %);
//   test-overlap-none  the 200 ms run from wait(), as a schedule that moves only when waited on
//                      (overlap near 0 %).
#include <mpi.h>

#include <chrono>
#include <functional>
#include <vector>
#include <string>
#include <thread>

#include "collrepro/intergroup.hpp"
#include "run/entry.hpp"

namespace {

using namespace collrepro;

// The native intercommunicator MPI_Allgather followed by `after(args)`.
class NativeThenRunner final : public Runner {
 public:
  using After = std::function<void(const inter::Args&)>;
  NativeThenRunner(MPI_Comm inter, const inter::Args& args, After after)
      : inter_(inter), args_(args), after_(std::move(after)) {}
  void run() override {
    check(MPI_Allgather(args_.send, mpi_count(args_.send_bytes, "send"), MPI_BYTE, args_.recv,
                        mpi_count(args_.recv_block(), "recv"), MPI_BYTE, inter_),
          "MPI_Allgather");
    after_(args_);
  }

 private:
  MPI_Comm inter_;
  const inter::Args& args_;
  After after_;
};

class NativeThen : public inter::InterAlgorithm {
 public:
  NativeThen(const std::string& name, NativeThenRunner::After after)
      : InterAlgorithm({name, Collective::Allgather, Topology::FullyConnected, Kind::Proposed,
                        "tests/driver: a test-only algorithm", "none"}),
        after_(std::move(after)) {}
  Support supports(const inter::Shape& s, PairMode mode) const override {
    if (mode != PairMode::Intercomm) return Support::no("needs an intercommunicator");
    if (!s.uniform_blocks() || s.max_block(0) < 4 || s.max_block(1) < 4) return Support::no("needs blocks of 4+ bytes");
    return Support::yes();
  }
  Cost cost(const inter::Shape&) const override { return {}; }
  std::unique_ptr<Runner> prepare(const GroupPair& pair, const inter::Args& args) const override {
    return std::make_unique<NativeThenRunner>(pair.intercomm(), args, after_);
  }

 private:
  NativeThenRunner::After after_;
};

struct CorruptByte final : NativeThen {
  CorruptByte()
      : NativeThen("test-corrupt-byte", [](const inter::Args& a) {
          if (a.recv_total() > 3) a.recv[3] ^= std::byte{0x40};
        }) {}
};

struct Slow final : NativeThen {
  Slow() : NativeThen("test-slow", [](const inter::Args&) { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }) {}
};

// The native MPI_Iallgather plus kTransfer of waiting on the clock: from start() when
// `from_start`, else from wait().
class TimedTransfer final : public StartedRunner {
 public:
  static constexpr std::chrono::microseconds kTransfer{200000};
  TimedTransfer(MPI_Comm inter, const inter::Args& args, bool from_start)
      : inter_(inter), args_(args), from_start_(from_start) {}
  void start() override {
    check(MPI_Iallgather(args_.send, mpi_count(args_.send_bytes, "send"), MPI_BYTE, args_.recv,
                         mpi_count(args_.recv_block(), "recv"), MPI_BYTE, inter_, &request_),
          "MPI_Iallgather");
    if (from_start_) done_at_ = std::chrono::steady_clock::now() + kTransfer;
  }
  void wait() override {
    if (!from_start_) done_at_ = std::chrono::steady_clock::now() + kTransfer;
    while (std::chrono::steady_clock::now() < done_at_) {
    }
    check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait");
  }

 private:
  MPI_Comm inter_;
  const inter::Args& args_;
  bool from_start_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  std::chrono::steady_clock::time_point done_at_;
};

class Overlapping : public NativeThen {
 public:
  Overlapping(const std::string& name, bool from_start)
      : NativeThen(name, [](const inter::Args&) {}), from_start_(from_start) {}
  std::vector<CallForm> calls() const override { return {CallForm::Blocking, CallForm::Nonblocking}; }
  std::unique_ptr<Runner> prepare(const GroupPair& pair, const inter::Args& args) const override {
    return std::make_unique<TimedTransfer>(pair.intercomm(), args, from_start_);
  }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const inter::Args& args, CallForm,
                                       const Capabilities&) const override {
    return prepare(pair, args);
  }

 private:
  bool from_start_;
};

struct OverlapFull final : Overlapping {
  OverlapFull() : Overlapping("test-overlap-full", true) {}
};
struct OverlapNone final : Overlapping {
  OverlapNone() : Overlapping("test-overlap-none", false) {}
};

COLLREPRO_REGISTER(CorruptByte);
COLLREPRO_REGISTER(Slow);
COLLREPRO_REGISTER(OverlapFull);
COLLREPRO_REGISTER(OverlapNone);

}  // namespace

int main(int argc, char** argv) { return collbench::collbench_main(argc, argv); }

// collbench with two test-only inter-group Allgathers registered beside the real ones. Both
// run the native MPI_Allgather and then:
//   test-corrupt-byte  flips byte 3 of the result: a validation failure must be a loud error
//                      (exit 3) naming the algorithm, point, rank and byte, with nothing of it
//                      written as a timing row (errors.sh);
//   test-slow          sleeps 40 ms: a sweep of it takes a known minimum time per point, so
//                      resume_kill.sh and sigterm.sh can interrupt it mid-sweep on any machine
//                      (a sweep of real algorithms at small sizes may finish before the kill).
#include <mpi.h>

#include <chrono>
#include <functional>
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

COLLREPRO_REGISTER(CorruptByte);
COLLREPRO_REGISTER(Slow);

}  // namespace

int main(int argc, char** argv) { return collbench::collbench_main(argc, argv); }

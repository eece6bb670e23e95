// collbench with one extra, deliberately wrong inter-group Allgather registered
// ("test-corrupt-byte": the native MPI_Allgather, then byte 3 of the result flipped), to
// test that a validation failure is a loud error (exit 3) that names the algorithm, the
// point, the rank and the byte, and that nothing of it is written as a timing row.
#include <mpi.h>

#include "collrepro/intergroup.hpp"
#include "entry.hpp"

namespace {

using namespace collrepro;

class CorruptRunner final : public Runner {
 public:
  CorruptRunner(MPI_Comm inter, const inter::Args& args) : inter_(inter), args_(args) {}
  void run() override {
    check(MPI_Allgather(args_.send, mpi_count(args_.send_bytes, "send"), MPI_BYTE, args_.recv,
                        mpi_count(args_.recv_block(), "recv"), MPI_BYTE, inter_),
          "MPI_Allgather");
    if (args_.recv_total() > 3) args_.recv[3] ^= std::byte{0x40};
  }

 private:
  MPI_Comm inter_;
  const inter::Args& args_;
};

class CorruptByte final : public inter::InterAlgorithm {
 public:
  CorruptByte()
      : InterAlgorithm({"test-corrupt-byte", Collective::Allgather, "fully-connected", Kind::Proposed,
                        "tests/driver: a deliberately wrong algorithm", "none"}) {}
  Support supports(const inter::Shape& s, PairMode mode) const override {
    if (mode != PairMode::Intercomm) return Support::no("needs an intercommunicator");
    if (!s.uniform_blocks() || s.max_block(0) < 4 || s.max_block(1) < 4) return Support::no("needs blocks of 4+ bytes");
    return Support::yes();
  }
  Cost cost(const inter::Shape&) const override { return {}; }
  std::unique_ptr<Runner> prepare(const GroupPair& pair, const inter::Args& args) const override {
    return std::make_unique<CorruptRunner>(pair.intercomm(), args);
  }
};

COLLREPRO_REGISTER(CorruptByte);

}  // namespace

int main(int argc, char** argv) { return collbench::collbench_main(argc, argv); }

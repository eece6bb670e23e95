// test-broken-allgather: a deliberately wrong inter-group Allgather, built only into the test
// variant of the PMPI library (libcollrepro_pmpi_test_broken.so, tests/interpose/CMakeLists.txt)
// for fuzz.<library>.catches: it runs root-gathering, then, on group rank 0 of a group that
// receives blocks of 3 bytes or more from 2 or more processes, flips the last received byte.
// The differential fuzzer must catch it, call it the project's fault (the MPI library's own call
// passes the same case), minimise the case and write a reproducer and a regression case.
// Blocking form only; never registered in collbench or the shipped library.
#include <memory>

#include "collrepro/intergroup.hpp"
#include "collrepro/registry.hpp"

namespace collrepro::inter {
namespace {

const InterAlgorithm& root_gathering() {
  const auto* a = dynamic_cast<const InterAlgorithm*>(Registry::global().find(Collective::Allgather, "root-gathering"));
  if (!a) throw std::logic_error("test-broken-allgather: root-gathering is not registered");
  return *a;
}

class FlipLastByte final : public Runner {
 public:
  FlipLastByte(std::unique_ptr<Runner> inner, const GroupPair& pair, const Args& args)
      : inner_(std::move(inner)), flip_(pair.local_rank() == 0 && pair.remote_size() >= 2), args_(args) {}
  void run() override {
    inner_->run();
    if (flip_ && args_.recv_block() >= 3) {
      std::byte& last = args_.recv[args_.recv_displs.back() + args_.recv_counts.back() - 1];
      last = ~last;
    }
  }

 private:
  std::unique_ptr<Runner> inner_;
  bool flip_;
  const Args& args_;  // the library rebinds its buffers between calls: read them at each run
};

class TestBrokenAllgather final : public InterAlgorithm {
 public:
  TestBrokenAllgather()
      : InterAlgorithm({"test-broken-allgather", Collective::Allgather, Topology::FullyConnected, Kind::Baseline,
                        "collrepro's fuzz test: root-gathering with the last received byte flipped", "as root-gathering",
                        {}}) {}
  Support supports(const Shape& shape, PairMode mode) const override { return root_gathering().supports(shape, mode); }
  Cost cost(const Shape& shape) const override { return root_gathering().cost(shape); }
  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return std::make_unique<FlipLastByte>(root_gathering().prepare(pair, args), pair, args);
  }
};

COLLREPRO_REGISTER(TestBrokenAllgather);

}  // namespace
}  // namespace collrepro::inter

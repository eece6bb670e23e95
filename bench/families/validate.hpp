// The validation run every family's PreparedPoint::validate() does, in one place: the call
// once on a freshly reset receive buffer, the native call (when there is one) for the
// reference bytes, then collrepro::check_result (collrepro/validation.hpp): send buffer
// unchanged, every block right and the sentinel around them, equal to the native result.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collrepro/buffers.hpp"
#include "collrepro/validation.hpp"

namespace collbench {

struct ValidationRun {
  std::string who;                                 // "world rank 3 (group A rank 1)"
  const collrepro::Buffer* send = nullptr;
  collrepro::Buffer* recv = nullptr;
  std::function<void()> reset;                     // before each call; default: the sentinel
  std::function<void()> call;                      // the algorithm under test, into *recv
  std::function<void()> native;                    // the native call into *recv, or empty
  std::string native_name;
  std::vector<collrepro::ExpectedBlock> expected;  // what *recv must hold after call()

  // Also compare with `native` prepared on `comm` with the same arguments (nullptr: no
  // comparison). comm and args must outlive the run.
  template <class Algo, class Comm, class Args>
  void compare_with(const Algo* native, const Comm& comm, const Args& args) {
    if (!native) return;
    this->native = [native, &comm, &args] { native->prepare(comm, args)->run(); };
    native_name = native->info().name;
  }
};

// Collective like the calls it makes: the native call runs even after an error, so that
// every rank takes part. Nullopt when the result is right, else one message.
std::optional<std::string> validate_run(const ValidationRun& v);

}  // namespace collbench

// The intra-communicator family's shared parts: the default supports(), the lower bounds and
// the default call forms (blocking only).
#include <climits>
#include <stdexcept>

#include "collrepro/intra.hpp"

namespace collrepro::intra {

Support IntraAlgorithm::supports(const Shape& shape) const {
  if (shape.n < 1) return Support::no("needs at least one process");
  if (shape.root < 0 || shape.root >= shape.n) return Support::no("the root is not a rank of the communicator");
  const bool gathers = info().collective != Collective::IntraBcast;
  const std::size_t largest = gathers ? shape.total() : shape.max_block();
  if (largest > static_cast<std::size_t>(INT_MAX))
    return Support::no("a count or displacement exceeds INT_MAX bytes (MPI_BYTE counts are int)");
  return Support::yes();
}

// Every process but the source must receive what it lacks through one port, after at least
// ceil(log2 n) rounds of doubling.
Cost IntraAlgorithm::lower_bound(const Shape& shape) const {
  const double rounds = shape.log_n();
  switch (info().collective) {
    case Collective::IntraBcast:
      return {rounds, static_cast<double>(shape.blocks.empty() ? 0 : shape.blocks[static_cast<std::size_t>(shape.root)])};
    default: {
      const double own = static_cast<double>(*std::min_element(shape.blocks.begin(), shape.blocks.end()));
      return {rounds, static_cast<double>(shape.total()) - own};
    }
  }
}

std::unique_ptr<Runner> IntraAlgorithm::prepare_call(MPI_Comm comm, const Args& args, CallForm form,
                                                     const Capabilities&) const {
  if (form == CallForm::Blocking) return prepare(comm, args);
  throw std::logic_error(info().name + " has no " + to_string(form) + " call (supports_call() says so)");
}

}  // namespace collrepro::intra

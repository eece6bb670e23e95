#include "families/validate.hpp"

namespace collbench {

std::optional<std::string> validate_run(const ValidationRun& v) {
  const auto reset = [&] { v.reset ? v.reset() : v.recv->fill(collrepro::kSentinel); };
  const std::vector<std::byte> send_before(v.send->data(), v.send->data() + v.send->size());
  reset();
  v.call();
  const std::vector<std::byte> got(v.recv->data(), v.recv->data() + v.recv->size());
  std::optional<collrepro::Reference> reference;
  if (v.native) {
    reset();
    v.native();
    reference = collrepro::Reference{v.recv->span(), v.native_name};
  }
  return collrepro::check_result(
      {v.who, send_before, v.send->span(), got, v.expected, reference});
}

}  // namespace collbench

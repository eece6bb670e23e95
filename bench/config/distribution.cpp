#include "config/distribution.hpp"

#include <algorithm>

#include "config/config_yaml.hpp"
#include "base/errors.hpp"

namespace collbench {

std::string Distribution::name() const { return std::string(collrepro::contract::name(kind)); }

Distribution parse_distribution(const std::string& text, const std::string& field) {
  Distribution d;
  d.field = field;
  const std::string head = text.substr(0, text.find(':'));
  const auto kind = collrepro::contract::parse<Distribution::Kind>(head);
  if (kind) {
    d.kind = *kind;
    if (head == text) return d;
    if (d.kind == Distribution::Kind::Random) {
      const std::string seed = text.substr(head.size() + 1);
      const std::string form = "= " + quote(text) + ": the seed must be a non-negative integer, e.g. random:7";
      d.seed = static_cast<std::uint64_t>(parse_count(seed, field, form));
      return d;
    }
  }
  throw config_error(field, "= " + quote(text) + " is not a distribution (use equal, arithmetic, random or random:<seed>)");
}

std::vector<std::size_t> distribute(const Distribution& d, std::size_t s, int n) {
  const auto N = static_cast<std::size_t>(n);
  std::vector<std::size_t> v(N, s);
  if (d.kind == Distribution::Kind::Arithmetic) {
    const std::size_t unit = (s + N - 1) / N;
    for (std::size_t i = 0; i < N; ++i) v[i] = 2 * (i + 1) * unit;
  } else if (d.kind == Distribution::Kind::Random) {
    for (std::size_t i = 0; i < N; ++i) {
      std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (N << 32) ^ s ^ (d.seed * 0xD6E8FEB86659FD93ull);
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      x ^= x >> 31;
      v[i] = s == 0 ? 0 : static_cast<std::size_t>(x % (2 * s + 1));
    }
  }
  return v;
}

std::pair<std::size_t, std::size_t> nominal_sizes(std::size_t size, std::size_t ka, std::size_t kb) {
  const std::size_t big = std::max(ka, kb);
  return {size / big * ka + size % big * ka / big, size / big * kb + size % big * kb / big};
}

}  // namespace collbench

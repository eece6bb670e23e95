#include "collrepro/words.hpp"

#include <climits>

namespace collrepro {

namespace {
constexpr std::size_t kWidestWord = 8;
}

std::size_t word_bytes(std::size_t block) {
  std::size_t word = kWidestWord;
  while (word > 1 && block % word != 0) word /= 2;
  return word;
}

std::optional<int> word_count(std::size_t bytes, std::size_t word) {
  if (word == 0 || bytes % word != 0 || bytes / word > static_cast<std::size_t>(INT_MAX)) return std::nullopt;
  return static_cast<int>(bytes / word);
}

}  // namespace collrepro

#include <gtest/gtest.h>

#include <climits>

#include "collrepro/words.hpp"

namespace collrepro {
namespace {

TEST(Words, WidestWordDividingTheBlock) {
  for (std::size_t block = 0; block <= 4096; ++block) {
    const std::size_t w = word_bytes(block);
    ASSERT_TRUE(w == 1 || w == 2 || w == 4 || w == 8) << block;
    EXPECT_EQ(block % w, 0u) << block;
    if (w < 8) {
      EXPECT_NE(block % (2 * w), 0u) << "a wider word divides " << block;
    }
  }
  EXPECT_EQ(word_bytes(std::size_t{4} << 20), 8u);
  EXPECT_EQ(word_bytes(0), 8u);
}

TEST(Words, CountsFitAnIntOrAreRefused) {
  EXPECT_EQ(word_count(4096, 8), 512);
  EXPECT_EQ(word_count(4097, 8), std::nullopt) << "the word must divide the bytes";
  EXPECT_EQ(word_count(0, 8), 0);
  EXPECT_EQ(word_count(16, 0), std::nullopt);
  const std::size_t int_max = static_cast<std::size_t>(INT_MAX);
  EXPECT_EQ(word_count(int_max, 1), INT_MAX);
  EXPECT_EQ(word_count(int_max + 1, 1), std::nullopt) << "2 GiB in bytes exceeds an int";
  // Seed 000 at 1024 x 8: 768 blocks of 4 MiB (3 GiB) in 8-byte words.
  const std::size_t three_gib = std::size_t{768} << 22;
  EXPECT_EQ(word_count(three_gib, 8), static_cast<int>(three_gib / 8));
  EXPECT_EQ(word_count(8 * (int_max + 1), 8), std::nullopt) << "16 GiB exceeds even 8-byte words";
}

}  // namespace
}  // namespace collrepro

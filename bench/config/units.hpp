// Units of the configuration: byte sizes, size ranges and durations.
//
//   bytes:     an integer with an optional unit: B, KiB, MiB, GiB, TiB (powers of 1024) or
//              kB, MB, GB, TB (powers of 1000). "32KiB", "4096", "1.5MiB" (must be whole bytes).
//              A bare "K", "KB" with capital K or "k" is ambiguous and rejected.
//   ranges:    "FROM..TO xF" (geometric: FROM, FROM*F, ... <= TO) or "FROM..TO +STEP"
//              (arithmetic), e.g. "32KiB..4MiB x2", "0..4KiB +1KiB".
//   durations: a number with a unit s, ms, us or ns: "1ms", "250us", "0.5s".
// Every parser throws std::invalid_argument with a message saying what was expected; the
// config layer prefixes the field name.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace collbench {

// The most sizes one size list (and so one range) may hold; checked while ranges are generated.
inline constexpr std::size_t kMaxSizes = 100000;

std::size_t parse_bytes(const std::string& text);
// One size or one range, expanded in order (at most kMaxSizes).
std::vector<std::size_t> parse_size_spec(const std::string& text);
double parse_duration(const std::string& text);

// "64KiB", "1MiB", "1000B": the shortest exact binary form, for messages and progress lines.
std::string format_bytes(std::size_t bytes);
// "1.5 GiB", "512 B": rounded to 3 significant digits, for memory budgets in messages.
std::string format_memory(std::size_t bytes);
// "1.23 ms", "45.6 us": for progress lines and reports.
std::string format_seconds(double seconds);

}  // namespace collbench

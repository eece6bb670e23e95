#include "config/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "base/errors.hpp"

namespace collbench {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits "12.5KiB" into the number 12.5 and the unit "KiB"; throws when there is no number.
std::pair<double, std::string> number_and_unit(const std::string& text, const char* what) {
  const std::string t = trim(text);
  std::size_t i = 0;
  const auto digit = [&](std::size_t k) { return k < t.size() && std::isdigit(static_cast<unsigned char>(t[k])); };
  while (i < t.size() && (digit(i) || t[i] == '.')) ++i;
  if (i == 0) throw std::invalid_argument("expected " + std::string(what) + ", got " + quote(text));
  // An exponent (1e9s, 2.5E-3s) belongs to the number, not the unit: e followed by a digit.
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    std::size_t k = i + 1;
    if (k < t.size() && (t[k] == '+' || t[k] == '-')) ++k;
    if (digit(k)) {
      while (digit(k)) ++k;
      i = k;
    }
  }
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(t.substr(0, i), &used);
    if (used != i) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument("expected " + std::string(what) + ", got " + quote(text));
  }
  return {value, trim(t.substr(i))};
}

double byte_unit(const std::string& unit, const std::string& text) {
  struct Unit {
    const char* name;
    double factor;
  };
  static constexpr Unit units[] = {{"", 1},           {"B", 1},           {"KiB", 1024.0},
                                   {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
                                   {"kB", 1e3},       {"MB", 1e6},        {"GB", 1e9},
                                   {"TB", 1e12}};
  for (const Unit& u : units)
    if (unit == u.name) return u.factor;
  throw std::invalid_argument("unknown size unit " + quote(unit) + " in " + quote(text) +
                              " (use B, KiB, MiB, GiB (1024) or kB, MB, GB (1000))");
}

}  // namespace

std::size_t parse_bytes(const std::string& text) {
  const auto [value, unit] = number_and_unit(text, "a size like 4096, 32KiB or 1MiB");
  const double bytes = value * byte_unit(unit, text);
  if (bytes > static_cast<double>(std::numeric_limits<std::size_t>::max() / 2))
    throw std::invalid_argument("size " + quote(text) + " is too large");
  if (bytes != std::floor(bytes))
    throw std::invalid_argument("size " + quote(text) + " is not a whole number of bytes");
  return static_cast<std::size_t>(bytes);
}

std::vector<std::size_t> parse_size_spec(const std::string& text) {
  const std::string t = trim(text);
  const auto dots = t.find("..");
  if (dots == std::string::npos) return {parse_bytes(t)};
  const std::string from_text = t.substr(0, dots);
  std::string rest = trim(t.substr(dots + 2));
  const auto step_at = rest.find_first_of("x+");
  if (step_at == std::string::npos)
    throw std::invalid_argument("range " + quote(text) + " needs a step: \"FROM..TO xFACTOR\" or \"FROM..TO +STEP\"");
  const std::size_t from = parse_bytes(from_text);
  const std::size_t to = parse_bytes(rest.substr(0, step_at));
  const char kind = rest[step_at];
  const std::string step_text = trim(rest.substr(step_at + 1));
  if (to < from) throw std::invalid_argument("range " + quote(text) + " ends before it starts");
  const auto too_many = [&] {
    return std::invalid_argument("range " + quote(text) + " has more than " + std::to_string(kMaxSizes) +
                                 " sizes (use a larger step or factor)");
  };
  std::vector<std::size_t> out;
  // The cap is checked before each size is added, so an over-long range fails at once.
  const auto add = [&](std::size_t v) {
    if (out.size() == kMaxSizes) throw too_many();
    out.push_back(v);
  };
  if (kind == 'x') {
    double factor = 0;
    try {
      std::size_t used = 0;
      factor = std::stod(step_text, &used);
      if (used != step_text.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw std::invalid_argument("range " + quote(text) + ": the factor after x must be a number, got " +
                                  quote(step_text));
    }
    if (!(factor > 1)) throw std::invalid_argument("range " + quote(text) + ": the factor must be greater than 1");
    if (from == 0) throw std::invalid_argument("range " + quote(text) + ": a geometric range cannot start at 0");
    for (double v = static_cast<double>(from); v <= static_cast<double>(to) * (1 + 1e-12); v *= factor)
      add(static_cast<std::size_t>(std::llround(v)));
  } else {
    const std::size_t step = parse_bytes(step_text);
    if (step == 0) throw std::invalid_argument("range " + quote(text) + ": the step must be positive");
    if ((to - from) / step >= kMaxSizes) throw too_many();
    for (std::size_t v = from; v <= to; v += step) add(v);
  }
  return out;
}

double parse_duration(const std::string& text) {
  const auto [value, unit] = number_and_unit(text, "a duration like 1ms, 250us or 0.5s");
  double factor = 0;
  if (unit == "s") factor = 1;
  else if (unit == "ms") factor = 1e-3;
  else if (unit == "us" || unit == "\xC2\xB5s") factor = 1e-6;
  else if (unit == "ns") factor = 1e-9;
  else
    throw std::invalid_argument("duration " + quote(text) + " needs a unit s, ms, us or ns");
  return value * factor;
}

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t v = bytes;
  int u = 0;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + units[u];
}

std::string format_memory(std::size_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (u < 6 && v >= 1024) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
  return buf;
}

std::string format_seconds(double s) {
  char buf[64];
  if (!std::isfinite(s)) return "nan";
  const double a = std::fabs(s);
  if (a >= 100) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (a >= 1) std::snprintf(buf, sizeof buf, "%.2f s", s);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else if (a >= 1e-6) std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  return buf;
}

}  // namespace collbench

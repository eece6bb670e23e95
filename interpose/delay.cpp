#include "delay.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "rules.hpp"

namespace collrepro::pmpi {
namespace {

std::string trim(const std::string& s) {
  constexpr const char* kSpace = " \t\n\r\f\v";
  const auto first = s.find_first_not_of(kSpace);
  return first == std::string::npos ? std::string() : s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

[[noreturn]] void fail(const std::string& rule, const std::string& why) {
  throw DelayError("rule '" + excerpt(rule) + "': " + why);
}

DelayCall parse_call(const std::string& rule, std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  if (name == "allgather") return DelayCall::Allgather;
  if (name == "allgatherv") return DelayCall::Allgatherv;
  if (name == "neighbor_alltoall") return DelayCall::NeighborAlltoall;
  if (name == "neighbor_alltoallv") return DelayCall::NeighborAlltoallv;
  fail(rule, "unknown call '" + excerpt(name) + "' (allgather, allgatherv, neighbor_alltoall or neighbor_alltoallv)");
}

std::size_t parse_bytes(const std::string& rule, const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 18) fail(rule, "size '" + excerpt(text) + "' is not a whole number of bytes (e.g. 65536 or 64KiB)");
  const unsigned long long n = std::strtoull(text.substr(0, i).c_str(), nullptr, 10);
  const std::string unit = text.substr(i);
  unsigned long long scale = 1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "KiB") scale = 1ULL << 10;
  else if (unit == "MiB") scale = 1ULL << 20;
  else if (unit == "GiB") scale = 1ULL << 30;
  else fail(rule, "size '" + excerpt(text) + "' has an unknown unit (B, KiB, MiB or GiB)");
  if (n > std::numeric_limits<unsigned long long>::max() / scale) fail(rule, "size '" + excerpt(text) + "' is too large");
  return static_cast<std::size_t>(n * scale);
}

void parse_size(const std::string& rule, const std::string& text, DelayRule& r) {
  if (text == "*") return;
  if (text.rfind(">=", 0) == 0) {
    r.min_bytes = parse_bytes(rule, trim(text.substr(2)));
  } else if (text.rfind("<=", 0) == 0) {
    r.max_bytes = parse_bytes(rule, trim(text.substr(2)));
  } else if (const auto dots = text.find(".."); dots != std::string::npos) {
    r.min_bytes = parse_bytes(rule, trim(text.substr(0, dots)));
    r.max_bytes = parse_bytes(rule, trim(text.substr(dots + 2)));
    if (r.min_bytes > r.max_bytes) fail(rule, "the range '" + excerpt(text) + "' is empty (write LOW..HIGH)");
  } else {
    r.min_bytes = r.max_bytes = parse_bytes(rule, text);
  }
}

// N of "+N<suffix>": a non-negative decimal number, or a failure naming the forms.
double parse_amount_number(const std::string& rule, const std::string& text, std::size_t suffix) {
  const std::string number = text.substr(1, text.size() - 1 - suffix);
  bool digits = !number.empty();
  for (char c : number)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') digits = false;
  errno = 0;
  char* end = nullptr;
  const double n = digits ? std::strtod(number.c_str(), &end) : -1;
  if (!digits || errno != 0 || end != number.c_str() + number.size() || !std::isfinite(n))
    fail(rule, "'" + excerpt(text) + "' is not a slowdown (write +N%, e.g. +10%, or a fixed time +Nus or +Nms)");
  return n;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "+N%" (a fraction of the call's own duration; +0%: a placebo) or "+Nus" / "+Nms" (a fixed time).
void parse_amount(const std::string& rule, const std::string& text, DelayRule& r) {
  if (text.empty() || text.front() != '+')
    fail(rule, "'" + excerpt(text) + "' is not a slowdown (write +N%, e.g. +10%, or a fixed time +Nus or +Nms)");
  if (ends_with(text, "%")) {
    const double n = parse_amount_number(rule, text, 1);
    // +0% is the placebo: the call is timed and matched as any other, and nothing is added.
    if (n < 0 || n > 1000) fail(rule, "'" + excerpt(text) + "' is not a slowdown from +0% (a placebo) to +1000%");
    r.fraction = n / 100.0;
    return;
  }
  const bool micro = ends_with(text, "us");
  if (!micro && !ends_with(text, "ms"))
    fail(rule, "'" + excerpt(text) + "' is not a slowdown (write +N%, e.g. +10%, or a fixed time +Nus or +Nms)");
  const double seconds = parse_amount_number(rule, text, 2) * (micro ? 1e-6 : 1e-3);
  if (seconds <= 0 || seconds > kMaxDelaySeconds)
    fail(rule, "'" + excerpt(text) + "' is not a fixed delay above 0 and at most 1 s (e.g. +500us or +2ms)");
  r.seconds = seconds;
}

DelayRule parse_rule(const std::string& rule) {
  const auto a = rule.find(':');
  const auto b = a == std::string::npos ? a : rule.find(':', a + 1);
  if (b == std::string::npos || rule.find(':', b + 1) != std::string::npos)
    fail(rule, "want CALL:SIZE:+N% (or CALL:SIZE:+Nus, +Nms)");
  DelayRule r;
  r.call = parse_call(rule, trim(rule.substr(0, a)));
  parse_size(rule, trim(rule.substr(a + 1, b - a - 1)), r);
  parse_amount(rule, trim(rule.substr(b + 1)), r);
  return r;
}

}  // namespace

std::vector<DelayRule> parse_delay(const std::string& text) {
  std::vector<DelayRule> rules;
  if (trim(text).empty()) return rules;
  if (text.size() > kMaxDelayText)
    throw DelayError(std::to_string(text.size()) + " characters, over the limit of " + std::to_string(kMaxDelayText));
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto end = text.find_first_of(",;", at);
    const std::string rule = trim(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (rule.empty()) throw DelayError("an empty rule (two separators in a row, or one at an end)");
    if (rules.size() == kMaxDelayRules)
      throw DelayError("more than " + std::to_string(kMaxDelayRules) + " rules");
    rules.push_back(parse_rule(rule));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return rules;
}

const DelayRule* find_delay(const std::vector<DelayRule>& rules, DelayCall c, std::size_t bytes) {
  for (const DelayRule& r : rules)
    if (r.matches(c, bytes)) return &r;
  return nullptr;
}

const char* to_string(DelayCall c) {
  switch (c) {
    case DelayCall::Allgather: return "allgather";
    case DelayCall::Allgatherv: return "allgatherv";
    case DelayCall::NeighborAlltoall: return "neighbor_alltoall";
    case DelayCall::NeighborAlltoallv: return "neighbor_alltoallv";
  }
  return "?";
}

}  // namespace collrepro::pmpi

// Neighbourhoods and their text syntax (seed 004 §2; the syntax and the row order are ours,
// see collrepro/neighborhood.hpp). Pure: compiled into collplan.
//
// The generated kinds all go through row_order(), the single definition of the paper's
// undefined "row order of neighbors". Errors name the offending token and the syntax.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "collrepro/neighborhood.hpp"

namespace collrepro::iso {
namespace {

// Generated kinds enumerate their whole box [lo, hi]^d (row_order): bounded by kMaxBox.
constexpr long long kMaxBox = 1LL << 20;

const char* const kSyntax =
    "moore:d=D,r=R | vonneumann:d=D,r=R | octant:d=D,r=R | shells:d=D,r=R1+R2+... | "
    "list:(c0,...,cD-1),(c0,...,cD-1),...";

[[noreturn]] void fail(std::string_view text, const std::string& what) {
  throw NeighborhoodError("bad neighbourhood '" + std::string(text) + "': " + what + "; accepted: " + kSyntax);
}

std::string strip_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n') out.push_back(c);
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

// A whole token as an int, or a NeighborhoodError naming it.
int to_int(std::string_view text, std::string_view token, const char* what) {
  int v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (token.empty() || ec != std::errc() || end != token.data() + token.size())
    fail(text, std::string(what) + " '" + std::string(token) + "' is not an integer");
  return v;
}

long long box_size(int d, int lo, int hi) {
  long long n = 1;
  for (int j = 0; j < d; ++j) {
    n *= static_cast<long long>(hi) - lo + 1;
    if (n > kMaxBox) return kMaxBox + 1;
  }
  return n;
}

void check_dims(const std::string& kind, long long d) {
  if (d < 1) throw NeighborhoodError(kind + ": d must be >= 1 (got " + std::to_string(d) + ")");
  if (d > kMaxNeighborhoodDims)
    throw NeighborhoodError(kind + ": d must be at most " + std::to_string(kMaxNeighborhoodDims) + " (got " +
                            std::to_string(d) + ")");
}

void check_size(const std::string& kind, std::size_t s) {
  if (s > kMaxNeighbors)
    throw NeighborhoodError(kind + ": more than " + std::to_string(kMaxNeighbors) + " offsets (use a smaller d or r)");
}

// d, the largest radius and the box [lo, hi]^d (lo = 0 or -r_max) of a generated kind.
void check_generator(const char* kind, int d, int r_max, bool from_zero) {
  const std::string k = kind;
  if (d < 1) check_dims(k, d);
  if (r_max < 1) throw NeighborhoodError(k + ": r must be >= 1 (got " + std::to_string(r_max) + ")");
  if (box_size(d, from_zero ? 0 : -r_max, r_max) > kMaxBox)
    throw NeighborhoodError(k + ": d=" + std::to_string(d) + ", r=" + std::to_string(r_max) + " spans more than " +
                            std::to_string(kMaxBox) + " candidate offsets (use a smaller d or r)");
  check_dims(k, d);
}

// The offsets of a generated kind; stops as soon as there are more than kMaxNeighbors.
std::vector<Offset> generate(const char* kind, int d, int lo, int hi, const std::function<bool(const Offset&)>& keep) {
  std::size_t kept = 0;
  return row_order(d, lo, hi, [&](const Offset& c) {
    if (!keep(c)) return false;
    check_size(kind, ++kept);
    return true;
  });
}

// key=value pairs of a generated kind: exactly d and r, each once.
struct Params {
  int d = 0;
  std::vector<int> r;
};

Params parse_params(std::string_view text, std::string_view kind, std::string_view body, bool many_r) {
  Params p;
  bool have_d = false, have_r = false;
  for (std::string_view item : split(body, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) fail(text, "'" + std::string(item) + "' is not key=value");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "d" && !have_d) {
      p.d = to_int(text, value, "d");
      have_d = true;
    } else if (key == "r" && !have_r) {
      for (std::string_view radius : split(value, '+')) p.r.push_back(to_int(text, radius, "r"));
      if (p.r.size() > 1 && !many_r)
        fail(text, "'" + std::string(value) + "': only shells takes several radii (r=R1+R2)");
      have_r = true;
    } else if (key == "d" || key == "r") {
      fail(text, "'" + std::string(key) + "' given twice");
    } else {
      fail(text, "unknown parameter '" + std::string(key) + "' of " + std::string(kind) + " (use d= and r=)");
    }
  }
  if (!have_d || !have_r) fail(text, std::string(kind) + " needs both d= and r=");
  return p;
}

std::vector<Offset> parse_list(std::string_view text, std::string_view body) {
  std::vector<Offset> offsets;
  std::size_t at = 0;
  while (at < body.size()) {
    if (body[at] != '(') fail(text, "expected '(' at '" + std::string(body.substr(at)) + "'");
    const auto close = body.find(')', at);
    if (close == std::string_view::npos) fail(text, "unclosed '" + std::string(body.substr(at)) + "'");
    Offset c;
    for (std::string_view x : split(body.substr(at + 1, close - at - 1), ','))
      c.push_back(to_int(text, x, "coordinate"));
    if (!offsets.empty() && c.size() != offsets.front().size())
      fail(text, "offset '" + std::string(body.substr(at, close - at + 1)) + "' has " + std::to_string(c.size()) +
                     " coordinates, the first has " + std::to_string(offsets.front().size()));
    offsets.push_back(std::move(c));
    at = close + 1;
    if (at < body.size()) {
      if (body[at] != ',') fail(text, "expected ',' between offsets at '" + std::string(body.substr(at)) + "'");
      if (++at == body.size()) fail(text, "trailing ','");
    }
  }
  if (offsets.empty()) fail(text, "list: needs at least one offset");
  return offsets;
}

std::string join(const std::vector<int>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

}  // namespace

const char* neighborhood_syntax() { return kSyntax; }

std::vector<Offset> row_order(int d, int lo, int hi, const std::function<bool(const Offset&)>& keep) {
  std::vector<Offset> out;
  if (d < 1 || lo > hi) return out;
  Offset c(static_cast<std::size_t>(d), lo);
  while (true) {
    if (keep(c)) out.push_back(c);
    // Odometer: c_{d-1} is the fastest digit, c_0 the slowest.
    int j = d - 1;
    while (j >= 0 && c[static_cast<std::size_t>(j)] == hi) c[static_cast<std::size_t>(j--)] = lo;
    if (j < 0) return out;
    ++c[static_cast<std::size_t>(j)];
  }
}

int norm1(const Offset& c) {
  int n = 0;
  for (int x : c) n += std::abs(x);
  return n;
}

int norm_inf(const Offset& c) {
  int n = 0;
  for (int x : c) n = std::max(n, std::abs(x));
  return n;
}

int nnz(const Offset& c) {
  return static_cast<int>(std::count_if(c.begin(), c.end(), [](int x) { return x != 0; }));
}

bool is_zero(const Offset& c) { return nnz(c) == 0; }

Offset axis_offset(int d, int j, int v) {
  Offset e(static_cast<std::size_t>(d), 0);
  e[static_cast<std::size_t>(j)] = v;
  return e;
}

Neighborhood Neighborhood::moore(int d, int r) {
  check_generator("moore", d, r, false);
  return {"moore", d, {r}, generate("moore", d, -r, r, [](const Offset& c) { return !is_zero(c); })};
}

Neighborhood Neighborhood::von_neumann(int d, int r) {
  check_generator("vonneumann", d, r, false);
  return {"vonneumann", d, {r}, generate("vonneumann", d, -r, r, [r](const Offset& c) { return !is_zero(c) && norm1(c) <= r; })};
}

Neighborhood Neighborhood::octant(int d, int r) {
  check_generator("octant", d, r, true);
  return {"octant", d, {r}, generate("octant", d, 0, r, [](const Offset& c) { return !is_zero(c); })};
}

Neighborhood Neighborhood::shells(int d, std::vector<int> radii) {
  if (radii.empty()) throw NeighborhoodError("shells: needs at least one radius");
  std::sort(radii.begin(), radii.end());
  radii.erase(std::unique(radii.begin(), radii.end()), radii.end());
  if (radii.front() < 1) throw NeighborhoodError("shells: every radius must be >= 1 (got " + join(radii, "+") + ")");
  const int r = radii.back();
  check_generator("shells", d, r, false);
  auto offsets = generate("shells", d, -r, r,
                          [&radii](const Offset& c) { return std::binary_search(radii.begin(), radii.end(), norm_inf(c)); });
  return {"shells", d, std::move(radii), std::move(offsets)};
}

Neighborhood Neighborhood::list(std::vector<Offset> offsets) {
  if (offsets.empty()) throw NeighborhoodError("list: needs at least one offset");
  const std::size_t d = offsets.front().size();
  if (d == 0) throw NeighborhoodError("list: offsets need at least one coordinate");
  check_dims("list", static_cast<long long>(d));
  check_size("list", offsets.size());
  for (const Offset& c : offsets) {
    if (c.size() != d) throw NeighborhoodError("list: offsets have different numbers of coordinates");
    long long norm = 0;
    for (int x : c) norm += std::llabs(x);
    if (norm > kMaxOffsetNorm)
      throw NeighborhoodError("list: offset (" + join(c, ",") + ") has |C| = " + std::to_string(norm) +
                              ", more than " + std::to_string(kMaxOffsetNorm) +
                              " (offsets act modulo the torus dimensions: give c_j mod p_j)");
  }
  return {"list", static_cast<int>(d), {}, std::move(offsets)};
}

Neighborhood Neighborhood::parse(std::string_view raw) {
  const std::string text = strip_spaces(raw);
  const auto colon = text.find(':');
  if (colon == std::string::npos) fail(raw, "missing ':' after the kind");
  const std::string_view kind = std::string_view(text).substr(0, colon);
  const std::string_view body = std::string_view(text).substr(colon + 1);
  try {
    if (kind == "list") return list(parse_list(raw, body));
    if (kind != "moore" && kind != "vonneumann" && kind != "octant" && kind != "shells")
      fail(raw, "unknown kind '" + std::string(kind) + "'");
    const Params p = parse_params(raw, kind, body, kind == "shells");
    if (kind == "moore") return moore(p.d, p.r.front());
    if (kind == "vonneumann") return von_neumann(p.d, p.r.front());
    if (kind == "octant") return octant(p.d, p.r.front());
    return shells(p.d, p.r);
  } catch (const NeighborhoodError& e) {
    const std::string what = e.what();
    if (what.rfind("bad neighbourhood", 0) == 0) throw;
    fail(raw, what);
  }
}

std::string Neighborhood::to_string() const {
  if (kind_ == "list") {
    std::string out = "list:";
    for (std::size_t i = 0; i < offsets_.size(); ++i) out += (i ? ",(" : "(") + join(offsets_[i], ",") + ")";
    return out;
  }
  if (kind_.empty()) return "(empty)";
  return kind_ + ":d=" + std::to_string(d_) + ",r=" + join(radii_, "+");
}

}  // namespace collrepro::iso

#include "rules.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

namespace collrepro::pmpi {

// ---------------------------------------------------------------------------------------------
// The tree: each object is a list of branches in file order; each branch's key is split into
// its condition once, when the rules are checked, so select() compares numbers and enums.

namespace {

constexpr std::string_view kAlgorithm = "algorithm=";

struct Condition {
  enum class Kind : unsigned char { Any, Collective, Call, Groups, Duplex, Senders, Neighborhood, AtMost, Above, Leaf };
  Kind kind = Kind::Any;
  Collective collective = Collective::Allgather;
  CallForm call = CallForm::Blocking;
  int larger = 0, smaller = 0;
  int senders = 0;
  bool half = false;
  std::size_t bytes = 0;
  std::shared_ptr<const std::vector<iso::Offset>> offsets;  // sorted; shared by equal specs
  std::string algorithm;                                    // Leaf: the name after algorithm=
};

struct Branch;

struct Node {
  bool object = false;  // false: a string, number, array, true, false or null
  std::vector<Branch> branches;
};

struct Branch {
  std::string key;
  Condition condition;
  Node child;
};

}  // namespace

struct Rules::Tree {
  Node root;
};

// ---------------------------------------------------------------------------------------------
// Excerpts: error lines quote at most a short, printable piece of the input.

namespace {

// The length of the valid UTF-8 sequence at s[i] (0 when there is none).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

// `text` with control characters and bytes that are not UTF-8 written as \xNN.
std::string printable(std::string_view text) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_length(text, i);
    if (n == 0 || b < 0x20 || b == 0x7f) {
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 0xf];
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

// A cut position at or before `at` that does not split a UTF-8 character.
std::size_t char_boundary(std::string_view s, std::size_t at) {
  while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xc0) == 0x80) --at;
  return at;
}

// `text` (already printable) kept to `max` characters: its start, "...", its end.
std::string elide_middle(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  const std::size_t head = char_boundary(text, max / 3);
  std::size_t tail = text.size() - (max - head - 3);
  while (tail < text.size() && (static_cast<unsigned char>(text[tail]) & 0xc0) == 0x80) ++tail;
  return std::string(text.substr(0, head)) + "..." + std::string(text.substr(tail));
}

// Every '...' quotation of `message` longer than an excerpt, shortened (for the messages of
// other parsers, which quote their input whole).
std::string shorten_quotes(const std::string& message) {
  std::string out;
  std::size_t from = 0;
  while (true) {
    const auto open = message.find('\'', from);
    const auto close = open == std::string::npos ? std::string::npos : message.find('\'', open + 1);
    if (close == std::string::npos) break;
    out.append(message, from, open + 1 - from);
    out += excerpt(std::string_view(message).substr(open + 1, close - open - 1));
    out += '\'';
    from = close + 1;
  }
  out.append(message, from, std::string::npos);
  return out;
}

[[noreturn]] void fail(const std::string& message) {
  throw RulesError(elide_middle(message, 480));  // a last guard: every line stays short
}

}  // namespace

std::string excerpt(std::string_view text, std::size_t max) {
  if (max < 4) max = 4;
  std::string out = printable(text.size() > 4 * max ? text.substr(0, 4 * max) : text);
  if (out.size() <= max && text.size() <= 4 * max) return out;
  return out.substr(0, char_boundary(out, max - 3)) + "...";
}

// ---------------------------------------------------------------------------------------------
// Parsing: nlohmann's SAX events into the tree, with the caps checked as the text streams by.

namespace {

// "/key/key/...": the keys leading to an error (the first `levels` of them), each an excerpt.
std::string where(const std::vector<const std::string*>& path, std::size_t levels = SIZE_MAX) {
  std::string out;
  for (std::size_t i = 0; i < path.size() && i < levels; ++i)
    if (path[i]) out += "/" + excerpt(*path[i]);
  return elide_middle(out, 140);
}

class Builder : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Builder(Node& root) : root_(root) {}

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }

  bool start_object(std::size_t) override {
    Node* node = next_value();
    if (!enter()) return false;
    if (node) node->object = true;
    stack_.push_back(node);
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    path_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    next_value();
    if (!enter()) return false;
    stack_.push_back(nullptr);  // arrays are not rules: their contents are skipped
    return true;
  }
  bool end_array() override { return end_object(); }

  bool key(string_t& key) override {
    if (++keys_ > kMaxRulesKeys) {
      error_ = "more than " + std::to_string(kMaxRulesKeys) + " keys (at " + where(path_, path_.size() - 1) +
               "), over the limit for a rules file (colltune writes a few hundred; trim the rules)";
      return false;
    }
    if (key.size() > kMaxRulesKeyBytes) {
      error_ = "at " + where(path_, path_.size() - 1) + ": a key of " + std::to_string(key.size()) + " bytes ('" +
               excerpt(key) + "'), over the limit of " + std::to_string(kMaxRulesKeyBytes) + " bytes for one key";
      return false;
    }
    if (Node* top = stack_.back()) {
      top->branches.push_back({});
      Branch& b = top->branches.back();
      b.key = std::move(key);
      pending_ = &b.child;
      path_.back() = &b.key;
    } else {
      pending_ = nullptr;
      skipped_[stack_.size()] = std::move(key);
      path_.back() = &skipped_[stack_.size()];
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string& last_token, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    const auto at = last_token.empty() ? std::string::npos : what.rfind(last_token);
    what = at == std::string::npos ? elide_middle(printable(what), 300)
                                   : what.substr(0, at) + excerpt(last_token) + what.substr(at + last_token.size());
    error_ = "not valid JSON: " + what;
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  // The node the next value fills (nullptr when it is not kept).
  Node* next_value() {
    Node* node = nullptr;
    if (!root_seen_) {
      root_seen_ = true;
      node = &root_;
    } else if (!stack_.empty() && stack_.back()) {
      node = pending_;
    }
    pending_ = nullptr;
    return node;
  }
  bool scalar() {
    next_value();
    return true;
  }
  bool enter() {
    if (stack_.size() >= kMaxRulesDepth) {
      error_ = "at " + where(path_) + ": nested deeper than " + std::to_string(kMaxRulesDepth) +
               " levels, over the limit for rules (a rule needs about 6; flatten them)";
      return false;
    }
    path_.push_back(nullptr);
    return true;
  }

  Node& root_;
  bool root_seen_ = false;
  Node* pending_ = nullptr;
  std::vector<Node*> stack_;  // the open objects and arrays (nullptr: not kept)
  std::vector<std::string> skipped_ = std::vector<std::string>(kMaxRulesDepth + 1);  // keys not kept, by level
  std::vector<const std::string*> path_;  // the key being read at each level (for messages)
  std::size_t keys_ = 0;
  std::string error_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Checking: every key becomes a condition, in file order (the first error is the first in the
// file, depth first).

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

using Path = std::vector<const std::string*>;

// The whole of `text` as an unsigned number; nullopt when it is not one (or it overflows).
std::optional<unsigned long long> whole_number(const std::string& text) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  return v;
}

std::size_t parse_bytes(const std::string& text, const Path& path) {
  const auto v = whole_number(text);
  if (!v)
    fail("at " + where(path) + ": '" + excerpt(text) +
         "' is not a byte count (write a whole number, e.g. msg_size<=4096)");
  return static_cast<std::size_t>(*v);
}

// "P:Q" -> (larger, smaller).
std::pair<int, int> parse_groups(const std::string& text, const Path& path) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) fail("at " + where(path) + ": groups must be written P:Q (e.g. groups=5:3)");
  const std::size_t p = parse_bytes(text.substr(0, colon), path);
  const std::size_t q = parse_bytes(text.substr(colon + 1), path);
  if (p < 1 || q < 1) fail("at " + where(path) + ": both groups need at least one process");
  if (p > INT_MAX || q > INT_MAX)
    fail("at " + where(path) + ": a group of more than " + std::to_string(INT_MAX) + " processes");
  return {static_cast<int>(std::max(p, q)), static_cast<int>(std::min(p, q))};
}

// "N" -> a sending group of N >= 1 processes.
int parse_senders(const std::string& text, const Path& path) {
  const auto v = whole_number(text);
  if (!v || *v < 1 || *v > INT_MAX)
    fail("at " + where(path) + ": senders='" + excerpt(text) + "' is not a process count (write the sending " +
         "group's size, a whole number from 1 to " + std::to_string(INT_MAX) + ", e.g. senders=12)");
  return static_cast<int>(*v);
}

// A condition key, split into its name, operator and value.
struct Split {
  std::string name, op, value;
};

Split split_condition(const std::string& key) {
  if (key == "any") return {"any", "", ""};
  for (const char* op : {"<=", ">", "="}) {
    const auto at = key.find(op);
    if (at != std::string::npos) return {key.substr(0, at), op, key.substr(at + std::strlen(op))};
  }
  return {key, "", ""};
}

class Checker {
 public:
  void check(Node& node, std::optional<Collective> scope) {
    if (!node.object) fail("at " + where(path_) + ": expected an object of conditions");
    const std::size_t duplicate = first_duplicate(node);
    for (std::size_t i = 0; i < node.branches.size(); ++i) {
      Branch& b = node.branches[i];
      path_.push_back(&b.key);
      if (i == duplicate)
        fail("at " + where(path_) + ": this key appears twice in one object (write each condition once)");
      std::optional<Collective> inner = scope;
      if (starts_with(b.key, kAlgorithm)) {
        leaf(b, scope);
      } else {
        condition(b, inner);
        check(b.child, inner);
      }
      path_.pop_back();
    }
  }

 private:
  // The index of the first branch whose key an earlier branch has (the size when none has).
  static std::size_t first_duplicate(const Node& node) {
    const std::size_t n = node.branches.size();
    if (n <= 8) {  // most objects: a few keys
      for (std::size_t i = 1; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (node.branches[i].key == node.branches[j].key) return i;
      return n;
    }
    std::unordered_set<std::string_view> seen(2 * n);
    for (std::size_t i = 0; i < n; ++i)
      if (!seen.insert(node.branches[i].key).second) return i;
    return n;
  }

  void leaf(Branch& b, std::optional<Collective> scope) {
    const std::string name = b.key.substr(kAlgorithm.size());
    const bool ok = name == "native" || servable(scope, name);
    if (!ok)
      fail("at " + where(path_) + ": unknown algorithm '" + excerpt(name) + "'" +
           (scope ? std::string(" for ") + to_string(*scope) : std::string()) +
           " (collbench --list-algorithms lists them; native kinds are written 'native')");
    if (!b.child.object || !b.child.branches.empty()) fail("at " + where(path_) + ": a leaf's value must be {}");
    b.condition.kind = Condition::Kind::Leaf;
    b.condition.algorithm = name;
  }

  void condition(Branch& b, std::optional<Collective>& inner) {
    const Split c = split_condition(b.key);
    Condition& out = b.condition;
    if (c.name == "any" && c.op.empty()) {
      out.kind = Condition::Kind::Any;
    } else if (c.name == "collective" && c.op == "=") {
      try {
        out.collective = collective_from_string(c.value);
      } catch (const std::invalid_argument&) {
        fail("at " + where(path_) + ": unknown collective '" + excerpt(c.value) + "'");
      }
      out.kind = Condition::Kind::Collective;
      inner = out.collective;
    } else if (c.name == "call" && c.op == "=") {
      const auto form = contract::parse<CallForm>(c.value);
      if (!form)
        fail("at " + where(path_) + ": call='" + excerpt(c.value) +
             "' is not a call form (blocking, nonblocking or persistent)");
      out.kind = Condition::Kind::Call;
      out.call = *form;
    } else if (c.name == "groups" && c.op == "=") {
      std::tie(out.larger, out.smaller) = parse_groups(c.value, path_);
      out.kind = Condition::Kind::Groups;
    } else if (c.name == "duplex" && c.op == "=") {
      if (c.value != "half" && c.value != "full") fail("at " + where(path_) + ": duplex is half or full");
      out.kind = Condition::Kind::Duplex;
      out.half = c.value == "half";
    } else if (c.name == "senders" && c.op == "=") {
      out.senders = parse_senders(c.value, path_);
      out.kind = Condition::Kind::Senders;
    } else if (c.name == "neighborhood" && c.op == "=") {
      out.kind = Condition::Kind::Neighborhood;
      out.offsets = neighborhood(c.value);
    } else if (c.name == "msg_size" && (c.op == "<=" || c.op == ">")) {
      out.kind = c.op == "<=" ? Condition::Kind::AtMost : Condition::Kind::Above;
      out.bytes = parse_bytes(c.value, path_);
    } else {
      fail("at " + where(path_) +
           ": unknown condition (use collective=, call=, groups=, duplex=, senders=, neighborhood=, "
           "msg_size<=, msg_size>, any or algorithm=)");
    }
  }

  // Each different neighbourhood is parsed once (a generated kind may enumerate 2^20 offsets).
  std::shared_ptr<const std::vector<iso::Offset>> neighborhood(const std::string& spec) {
    if (const auto it = neighborhoods_.find(spec); it != neighborhoods_.end()) return it->second;
    if (neighborhoods_.size() >= kMaxRulesNeighborhoods)
      fail("at " + where(path_) + ": more than " + std::to_string(kMaxRulesNeighborhoods) +
           " different neighbourhoods, over the limit for a rules file (colltune writes one per swept neighbourhood)");
    std::shared_ptr<const std::vector<iso::Offset>> offsets;
    try {
      offsets =
          std::make_shared<const std::vector<iso::Offset>>(sorted_offsets(iso::Neighborhood::parse(spec).offsets()));
    } catch (const std::exception& e) {
      fail("at " + where(path_) + ": " + shorten_quotes(e.what()));
    }
    enumerated_ += enumerated(spec, *offsets);
    if (enumerated_ > kMaxRulesNeighborhoodBoxes)
      fail("at " + where(path_) + ": the neighbourhoods so far span more than " +
           std::to_string(kMaxRulesNeighborhoodBoxes) +
           " candidate offsets, over the limit for a rules file (name fewer or smaller generated neighbourhoods)");
    neighborhoods_.emplace(spec, offsets);
    return offsets;
  }

  // The offsets Neighborhood::parse enumerated for `spec`: a list's own; a generated kind's
  // whole box [-R, R]^d (an upper bound for octant), at most the parser's cap of 2^20.
  static std::size_t enumerated(const std::string& spec, const std::vector<iso::Offset>& offsets) {
    const auto first = spec.find_first_not_of(" \t\n");
    if (first != std::string::npos && spec.compare(first, 4, "list") == 0) return offsets.size();
    const std::size_t d = offsets.empty() ? 0 : offsets.front().size();
    long long r = 0;
    for (const iso::Offset& c : offsets)
      for (int v : c) r = std::max(r, std::abs(static_cast<long long>(v)));
    std::size_t box = 1;
    for (std::size_t j = 0; j < d && box <= (std::size_t{1} << 20); ++j) box *= static_cast<std::size_t>(2 * r + 1);
    return std::max(offsets.size(), std::min(box, std::size_t{1} << 20));
  }

  // NAME is a non-native algorithm of the collective in scope (of any collective without one).
  bool servable(std::optional<Collective> scope, const std::string& name) {
    const int key = scope ? static_cast<int>(*scope) : -1;
    if (const auto it = servable_.find({key, name}); it != servable_.end()) return it->second;
    bool ok = false;
    for (Collective c : all_collectives()) {
      if (scope && c != *scope) continue;
      const Algorithm* a = Registry::global().find(c, name);
      ok = ok || (a && a->info().kind != Kind::Native);
    }
    servable_.emplace(std::pair(key, name), ok);
    return ok;
  }

  std::vector<const std::string*> path_;
  std::map<std::string, std::shared_ptr<const std::vector<iso::Offset>>> neighborhoods_;
  std::map<std::pair<int, std::string>, bool> servable_;
  std::size_t enumerated_ = 0;  // candidate offsets the neighbourhood parser went through
};

bool matches(const Condition& c, const Query& q) {
  switch (c.kind) {
    case Condition::Kind::Any: return true;
    case Condition::Kind::Collective: return c.collective == q.collective;
    case Condition::Kind::Call: return c.call == q.call;
    case Condition::Kind::Groups: return q.larger == c.larger && q.smaller == c.smaller;
    case Condition::Kind::Duplex: return q.larger > 0 && c.half == q.half_duplex;
    case Condition::Kind::Senders: return q.larger > 0 && q.half_duplex && q.senders > 0 && c.senders == q.senders;
    case Condition::Kind::Neighborhood: return !q.offsets.empty() && *c.offsets == q.offsets;
    case Condition::Kind::AtMost: return q.msg_size <= c.bytes;
    case Condition::Kind::Above: return q.msg_size > c.bytes;
    case Condition::Kind::Leaf: return true;
  }
  return false;
}

std::optional<std::string> first_leaf(const Node& node, const Query& q) {
  for (const Branch& b : node.branches) {
    if (b.condition.kind == Condition::Kind::Leaf) return b.condition.algorithm;
    if (!matches(b.condition, q)) continue;
    if (auto found = first_leaf(b.child, q)) return found;
  }
  return std::nullopt;
}

std::string size_text(unsigned long long bytes) { return std::to_string(bytes) + " bytes"; }

static_assert(kMaxRulesBytes % (1 << 20) == 0, "the messages name the cap in MiB");
std::string cap_text() { return "the " + std::to_string(kMaxRulesBytes >> 20) + " MiB limit"; }

}  // namespace

int sending_group(int p, int q, std::size_t bytes_a, std::size_t bytes_b) {
  if (bytes_a > 0 && bytes_b == 0) return p;
  if (bytes_b > 0 && bytes_a == 0) return q;
  return 0;
}

std::vector<iso::Offset> sorted_offsets(std::vector<iso::Offset> offsets) {
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

Rules Rules::parse(std::string_view text) {
  if (text.size() > kMaxRulesBytes)
    fail("the rules are " + size_text(text.size()) + ", over " + cap_text() + " (" + std::to_string(kMaxRulesBytes) +
         " bytes; colltune writes far less: trim them)");
  auto tree = std::make_shared<Tree>();
  Builder builder(tree->root);
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &builder)) fail(builder.error());
  if (!tree->root.object || tree->root.branches.empty())
    fail("the rules must be a non-empty JSON object of conditions (e.g. {\"collective=allgather\": ...})");
  Checker().check(tree->root, std::nullopt);
  Rules r;
  r.tree_ = std::move(tree);
  return r;
}

std::string Rules::read_file(const std::string& path) {
  const auto cannot = [&](int err) {
    fail("cannot read '" + path + "': " + std::strerror(err) + " (check COLLREPRO_PMPI_RULES)");
  };
  const auto too_big = [&](const std::string& size) {
    fail(path + " is " + size + ", over " + cap_text() + " (trim it; colltune writes far less)");
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) cannot(errno);
  if (S_ISDIR(st.st_mode)) cannot(EISDIR);
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))  // opening one could wait for a writer: MPI_Init stalls
    fail("cannot read '" + path + "': a pipe or socket, not a regular file (write the rules to a file)");
  if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) > kMaxRulesBytes)
    too_big(size_text(static_cast<unsigned long long>(st.st_size)));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // never waits (a path swapped since stat)
  if (fd < 0) cannot(errno);
  std::string text(kMaxRulesBytes + 1, '\0');  // one byte past the cap: a file that grew is caught
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, &text[got], text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      cannot(err);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got > kMaxRulesBytes) too_big("more than " + size_text(kMaxRulesBytes));
  text.resize(got);
  return text;
}

Rules Rules::load(const std::string& path) {
  const std::string text = read_file(path);
  try {
    return parse(text);
  } catch (const RulesError& e) {
    throw RulesError(path + ": " + e.what());
  }
}

std::optional<std::string> Rules::select(const Query& q) const {
  return tree_ ? first_leaf(tree_->root, q) : std::nullopt;
}

}  // namespace collrepro::pmpi

// inter_check: validates one registered inter-group algorithm, bit for bit, against the
// native intercommunicator MPI_Allgather / MPI_Allgatherv and against the computed
// expected result, over a matrix of shapes that fit the launched process count.
//
//   inter_check --collective allgather|allgatherv --algorithm NAME --mode intercomm|intracomm
//               [--call blocking|nonblocking|persistent]
//   inter_check --expect name,name,... --collective C       (fails if the registry has others)
//
// For every case: send buffers must be unchanged, receive gaps keep the sentinel, the
// runner is run twice (three times for a nonblocking or persistent call: several starts of one
// init) with the send buffers rewritten before each run, so that a copy cached at init fails,
// and the result equals the native blocking one on the same data byte for byte. Unsupported shapes are counted as skipped with their reason;
// a run where every case is skipped fails, so a test cannot pass by rejecting everything.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "check_main.hpp"
#include "collrepro/buffers.hpp"
#include "collrepro/intergroup.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/validation.hpp"

using namespace collrepro;
using inter::Args;
using inter::Shape;

namespace {

struct Options {
  Collective collective = Collective::Allgather;
  std::string algorithm;
  PairMode mode = PairMode::Intercomm;
  CallForm call = CallForm::Blocking;
  std::string expect;
  bool verbose = false;
  bool quick = false;  // a reduced matrix (the MPICH set in CI: MPICH busy-polls when oversubscribed)
  std::vector<std::pair<int, int>> pairs;  // --pairs 25:7,7:25 restricts the group sizes
};

std::vector<std::pair<int, int>> parse_pairs(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("--pairs takes p:q[,p:q...], got '" + item + "'");
    out.push_back({std::stoi(item.substr(0, colon)), std::stoi(item.substr(colon + 1))});
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  collrepro::checker::parse_flags(argc, argv, [&](const std::string& a, auto next) {
    if (a == "--collective") o.collective = collective_from_string(next());
    else if (a == "--algorithm") o.algorithm = next();
    else if (a == "--mode") {
      const std::string m = next();
      if (m != "intercomm" && m != "intracomm") throw std::invalid_argument("--mode intercomm|intracomm");
      o.mode = m == "intercomm" ? PairMode::Intercomm : PairMode::Intracomm;
    } else if (a == "--call") {
      const std::string c = next();
      const auto form = contract::parse<CallForm>(c);
      if (!form) throw std::invalid_argument("--call blocking|nonblocking|persistent, got '" + c + "'");
      o.call = *form;
    } else if (a == "--expect") o.expect = next();
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--quick") o.quick = true;
    else if (a == "--pairs") o.pairs = parse_pairs(next());
    else return false;
    return true;
  });
  return o;
}

// (p, q) pairs that fit n processes: every split of n, plus the named ratios of the issue.
std::vector<std::pair<int, int>> group_pairs(int n, bool quick) {
  std::set<std::pair<int, int>> s;
  for (int p = 1; p < n; ++p)
    if (!quick || p == 1 || p == n - 1 || 2 * p == n) s.insert({p, n - p});
  for (auto pq : std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {3, 3}, {1, 4}, {4, 1}, {8, 3}, {3, 8}, {13, 3},
                                                   {3, 13}, {5, 7}, {7, 5}, {2, 6}, {6, 2}, {25, 7}, {7, 25}, {11, 2},
                                                   {2, 11}, {6, 4}, {4, 6}})
    if (pq.first + pq.second <= n) s.insert(pq);
  return {s.begin(), s.end()};
}

// Exit code of a form the library lacks (ctest SKIP_RETURN_CODE, tests/mpi/catalogue/intergroup.cmake).
constexpr int kSkipped = 77;

constexpr std::size_t kLarge = (std::size_t{1} << 20) + 3;  // larger than 1 MiB, odd
constexpr std::size_t kMedium = (std::size_t{1} << 16) + 7;  // above the libraries' eager limits, odd

// The > 1 MiB blocks run on every pair of up to 8 processes and on the extreme and even splits
// beyond (1:q, p:1, p:p); the other pairs take kMedium, which still crosses the eager/rendezvous
// switch. Copying megabytes through 16 oversubscribed ranks was most of the suite's time.
bool large_blocks(int p, int q) { return p + q <= 8 || p == 1 || q == 1 || p == q; }

// Block sizes (ka, kb) for Allgather: zero, tiny, odd, smaller than ceil(p/q), half-duplex
// in both directions, unequal, and large (see large_blocks). Between them they take every
// word size that root gathering counts in (collrepro/words.hpp: 1, 2, 4 and 8 bytes).
std::vector<std::pair<std::size_t, std::size_t>> allgather_sizes(int p, int q, bool quick) {
  if (quick) return {{0, 0}, {13, 7}, {3, 1}, {64, 0}, {0, 4097}, {100000, 99999}};
  const std::size_t big = large_blocks(p, q) ? kLarge : kMedium;
  return {{0, 0}, {1, 1},    {13, 7},    {7, 13},   {3, 1},  {1, 3},  {64, 0},
          {0, 64}, {4097, 0}, {0, 4097}, {1000, 250}, {12, 20}, {big, big + 2}, {big, 0}, {0, big}};
}

// Block size vectors for Allgatherv (one group): equal, arithmetic 2(i+1)c, zero-laden,
// a single huge block (`big`), fewer bytes than processes.
std::vector<std::vector<std::size_t>> distributions(int n, std::size_t big) {
  const auto N = static_cast<std::size_t>(n);
  std::vector<std::vector<std::size_t>> d;
  d.push_back(std::vector<std::size_t>(N, 100));
  std::vector<std::size_t> arith(N), zeros(N), huge(N, 0), sparse(N, 0), odd(N);
  for (std::size_t i = 0; i < N; ++i) {
    arith[i] = 2 * (i + 1) * 5;
    zeros[i] = (i % 3 == 1) ? 37 : 0;
    odd[i] = 2 * i + 1;
  }
  huge[N / 2] = big;
  sparse[0] = 1;
  d.push_back(arith);
  d.push_back(zeros);
  d.push_back(huge);
  d.push_back(sparse);
  d.push_back(odd);
  d.push_back(std::vector<std::size_t>(N, 0));
  return d;
}

struct Case {
  Shape shape;
  bool gapped = false;  // Allgatherv: blocks in reverse order with gaps between them
  std::string describe() const { return shape.describe() + (gapped ? " displs=gapped" : ""); }
};

std::vector<Case> cases_for(Collective c, int n, bool quick, const std::vector<std::pair<int, int>>& only) {
  std::vector<Case> out;
  for (auto [p, q] : only.empty() ? group_pairs(n, quick) : only) {
    if (p + q > n) throw std::invalid_argument("--pairs: " + std::to_string(p) + ":" + std::to_string(q) + " needs " +
                                               std::to_string(p + q) + " processes, launched with " + std::to_string(n));
    if (c == Collective::Allgather) {
      for (auto [ka, kb] : allgather_sizes(p, q, quick)) out.push_back({Shape::uniform(p, q, ka, kb)});
    } else {
      const std::size_t big = large_blocks(p, q) ? kLarge : kMedium;
      const auto da = distributions(p, big), db = distributions(q, big);
      for (std::size_t i = 0; i < da.size(); ++i) {
        Shape s{p, q, da[i], db[(i + 1) % db.size()]};
        out.push_back({s, false});
        if (!quick || i % 2 == 0) out.push_back({s, true});
      }
      out.push_back({Shape{p, q, da[2], std::vector<std::size_t>(static_cast<std::size_t>(q), 0)}, false});
    }
  }
  return out;
}

// Receive layout of remote blocks: contiguous, or reverse order with a 3-byte gap before each.
void layout(const std::vector<std::size_t>& counts, bool gapped, std::vector<std::size_t>& displs,
            std::size_t& total) {
  displs.assign(counts.size(), 0);
  total = 0;
  if (!gapped) {
    for (std::size_t j = 0; j < counts.size(); ++j) displs[j] = std::exchange(total, total + counts[j]);
    return;
  }
  for (std::size_t j = counts.size(); j-- > 0;) {
    total += 3;
    displs[j] = std::exchange(total, total + counts[j]);
  }
  total += 5;
}

struct Outcome {
  bool ran = false;
  std::string error;  // empty when correct
};

// The communicators of one (p, q) pair in both placements (block, interleaved), created once
// and reused by every case of that pair: creating them per case was most of the test's time.
class PairCache {
 public:
  PairCache(PairMode mode, int world_size) : mode_(mode), world_size_(world_size) {}
  struct Entry {
    std::optional<GroupPair> pair, ref;  // the tested mode, and the intercommunicator reference
  };
  const Entry& get(int p, int q, bool interleaved) {
    if (p != p_ || q != q_) {
      entries_[0].reset();
      entries_[1].reset();
      p_ = p;
      q_ = q;
    }
    auto& e = entries_[interleaved ? 1 : 0];
    if (!e) {
      const auto sides = interleaved ? interleaved_sides(world_size_, p, q) : block_sides(world_size_, p, q);
      e.emplace();
      e->pair = GroupPair::create(MPI_COMM_WORLD, sides, mode_);
      e->ref = GroupPair::create(MPI_COMM_WORLD, sides, PairMode::Intercomm);
    }
    return *e;
  }

 private:
  PairMode mode_;
  int world_size_;
  int p_ = -1, q_ = -1;
  std::optional<Entry> entries_[2];
};

// Runs the algorithm (twice) and the native reference for one case; returns this rank's verdict.
Outcome run_case(const inter::InterAlgorithm& algo, const inter::InterAlgorithm& native, const Case& c,
                 CallForm call, const Capabilities& caps, PairCache& pairs, int world_rank, std::uint64_t salt) {
  const auto& entry = pairs.get(c.shape.p, c.shape.q, salt % 2 != 0);
  const auto& pair = entry.pair;
  const auto& ref_pair = entry.ref;
  Outcome out;
  if (!pair) return out;
  const int side = pair->side(), me = pair->local_rank();
  const std::size_t my_bytes = c.shape.blocks(side)[static_cast<std::size_t>(me)];
  const auto& counts = c.shape.blocks(1 - side);
  std::vector<std::size_t> displs;
  std::size_t total = 0;
  layout(counts, c.gapped, displs, total);

  Buffer send(my_bytes), recv(total), ref(total);
  Args args{send.data(), my_bytes, recv.data(), counts, displs};
  Args ref_args{send.data(), my_bytes, ref.data(), counts, displs};

  auto runner = algo.prepare_call(*pair, args, call, caps);
  out.ran = true;
  // Every run on every rank (the calls are collective), each on new send data.
  const int runs = call == CallForm::Blocking ? 2 : 3;
  for (int round = 1; round <= runs; ++round) {
    const std::uint64_t data_salt = salt + static_cast<std::uint64_t>(round - 1) * 0x9e3779b9u;
    fill_pattern(send.span(), side, me, data_salt);
    const std::vector<std::byte> send_copy(send.span().begin(), send.span().end());
    native.prepare(*ref_pair, ref_args)->run();
    recv.fill(kSentinel);
    runner->run();
    if (!out.error.empty()) continue;
    const std::string who = "run " + std::to_string(round) + " (" + to_string(call) + "), world rank " +
                            std::to_string(world_rank) + " (group " + "AB"[side] + " rank " + std::to_string(me) + ")";
    const Reference reference{ref.span(), native.info().name};
    out.error = check_result({who, send_copy, send.span(), recv.span(), inter_expected(counts, displs, side, data_salt),
                              reference})
                    .value_or("");
  }
  return out;
}

int check_expected(const Options& o, int world_rank) {
  std::set<std::string> expected;
  std::stringstream ss(o.expect);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) expected.insert(name);
  int missing = 0;
  for (const auto* a : Registry::global().family<inter::InterAlgorithm>(o.collective))
    if (!expected.count(a->info().name)) {
      if (world_rank == 0)
        std::cerr << "registered " << to_string(o.collective) << " algorithm '" << a->info().name
                  << "' has no MPI test: add it to tests/mpi/*.cmake\n";
      ++missing;
    }
  for (const auto& name : expected)
    if (!Registry::global().find(o.collective, name)) {
      if (world_rank == 0) std::cerr << "tested algorithm '" << name << "' is not registered\n";
      ++missing;
    }
  if (world_rank == 0) std::cout << (missing ? 0 : 1) << " passed, " << (missing ? 1 : 0) << " failed\n";
  return missing ? 1 : 0;
}

const inter::InterAlgorithm& lookup(Collective c, const std::string& name) {
  const auto* a = dynamic_cast<const inter::InterAlgorithm*>(Registry::global().find(c, name));
  if (!a) throw std::invalid_argument("no inter-group " + std::string(to_string(c)) + " algorithm named '" + name + "'");
  return *a;
}

int run(const Options& o) {
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (!o.expect.empty()) return check_expected(o, world_rank);

  const auto& algo = lookup(o.collective, o.algorithm);
  const auto& native = lookup(o.collective, "native");
  int passed = 0, failed = 0, skipped = 0;
  std::uint64_t salt = 1;
  PairCache pairs(o.mode, world_size);
  // A form the algorithm does not offer on this library skips every case with the reason.
  const Capabilities caps = probe_capabilities(MPI_COMM_WORLD);
  const Support form = algo.supports_call(o.call, caps);
  if (!form) {  // the library lacks the form (or it failed the probe): a recorded finding, not a pass
    if (world_rank == 0)
      std::cout << to_string(o.collective) << "/" << o.algorithm << " " << to_string(o.call) << ": skipped: " << form.reason
                << "\n";
    return kSkipped;
  }
  for (const Case& c : cases_for(o.collective, world_size, o.quick, o.pairs)) {
    ++salt;
    const Support support = algo.supports(c.shape, o.mode);
    if (!support) {
      ++skipped;
      if (o.verbose && world_rank == 0) std::cout << "skip " << c.describe() << ": " << support.reason << "\n";
      continue;
    }
    Outcome out = run_case(algo, native, c, o.call, caps, pairs, world_rank, salt);
    int bad = out.error.empty() ? 0 : 1, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) std::cerr << "FAIL " << o.algorithm << " " << c.describe() << ": " << out.error << std::endl;
    if (any_bad) ++failed;
    else ++passed;
    if (o.verbose && world_rank == 0) std::cout << (any_bad ? "FAIL " : "ok   ") << c.describe() << "\n";
  }
  return checker::summarize(world_rank,
                          std::string(to_string(o.collective)) + "/" + o.algorithm + " (" + to_string(o.mode) + ", " +
                              to_string(o.call) + ", " + std::to_string(world_size) + " processes)",
                          skipped, "shapes", "no supported shape at this process count", passed, failed);
}

}  // namespace

int main(int argc, char** argv) {
  return collrepro::checker::checker_main("inter_check", argc, argv, [](int c, char** v) { return run(parse(c, v)); });
}

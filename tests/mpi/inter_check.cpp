// inter_check: validates registered inter-group algorithms, bit for bit, against the native
// intercommunicator MPI_Allgather / MPI_Allgatherv and against the computed expected result,
// over a matrix of shapes that fit the launched process count.
//
//   inter_check --collective allgather|allgatherv --algorithm NAME[,NAME...] --mode intercomm|intracomm
//               [--call blocking|nonblocking|persistent]
//   inter_check --expect name,name,... --collective C       (fails if the registry has others)
//
// One launch checks every listed algorithm (the ctest of a collective, mode, call form and
// process count lists all of the catalogue's that offer it): the communicators of each group
// pair and the native reference of each case are made once and shared by them, which is most of
// what a launch per algorithm repeated. For every case and algorithm: send buffers must be
// unchanged, receive gaps keep the sentinel, the runner is run twice (three times for a
// nonblocking or persistent call: several starts of one init) with the send buffers rewritten
// before each run, so that a copy cached at init fails, and the result equals the native
// blocking one on the same data byte for byte. A nonblocking call is prepared on decoy buffers
// and run on the case's own, as the PMPI library runs it. Unsupported shapes are counted as skipped with
// their reason; an algorithm for which every case is skipped fails, so no algorithm can pass by
// rejecting everything. Each algorithm gets its own summary line, the launch one closing line.
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
  std::vector<std::string> algorithms;  // --algorithm a,b,c
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
    else if (a == "--algorithm") o.algorithms = checker::split_names(next());
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

// The communicators of one (p, q) pair in both placements (block, interleaved), created once
// and reused by every case of that pair and every algorithm: creating them per case was most of
// a launch's time.
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

// One case on this rank: its group pair, layout and buffers, and the native blocking reference
// of each run's send data, computed once for all the algorithms that take the case.
class CaseRun {
 public:
  CaseRun(const Case& c, CallForm call, PairCache& pairs, std::uint64_t salt)
      : entry_(pairs.get(c.shape.p, c.shape.q, salt % 2 != 0)),
        runs_(call == CallForm::Blocking ? 2 : 3),
        salt_(salt) {
    if (!entry_.pair) return;  // this rank is in neither group
    side_ = entry_.pair->side();
    me_ = entry_.pair->local_rank();
    my_bytes_ = c.shape.blocks(side_)[static_cast<std::size_t>(me_)];
    counts_ = c.shape.blocks(1 - side_);
    layout(counts_, c.gapped, displs_, total_);
    send_ = Buffer(my_bytes_);
    recv_ = Buffer(total_);
  }
  bool member() const { return entry_.pair.has_value(); }

  // The native result of every run's data (every rank of the pair takes part: collective).
  void compute_references(const inter::InterAlgorithm& native) {
    refs_.clear();
    for (int round = 1; round <= runs_; ++round) {
      refs_.emplace_back(total_);
      fill_pattern(send_.span(), side_, me_, data_salt(round));
      Args ref_args{send_.data(), my_bytes_, refs_.back().data(), counts_, displs_};
      native.prepare(*entry_.ref, ref_args)->run();
    }
  }

  // Runs `algo` in the call form (prepared once, run `runs_` times on new data); this rank's
  // first error, or "".
  // A nonblocking call is prepared on decoy buffers and run on the case's own: the PMPI library
  // prepares one schedule per shape and rebinds the application's buffers in its Args before
  // every call, so a schedule that kept the pointers it was prepared with fails here.
  std::string check(const inter::InterAlgorithm& algo, CallForm call, const Capabilities& caps, int world_rank) {
    const bool rebinds = call == CallForm::Nonblocking;
    Buffer decoy_send(rebinds ? my_bytes_ : 0), decoy_recv(rebinds ? total_ : 0);
    Args args{rebinds ? decoy_send.data() : send_.data(), my_bytes_, rebinds ? decoy_recv.data() : recv_.data(),
              counts_, displs_};
    auto runner = algo.prepare_call(*entry_.pair, args, call, caps);
    args.send = send_.data();
    args.recv = recv_.data();
    std::string error;
    for (int round = 1; round <= runs_; ++round) {  // every run on every rank: the calls are collective
      fill_pattern(send_.span(), side_, me_, data_salt(round));
      const std::vector<std::byte> send_copy(send_.span().begin(), send_.span().end());
      recv_.fill(kSentinel);
      runner->run();
      if (!error.empty()) continue;
      const std::string who = "run " + std::to_string(round) + " (" + to_string(call) + "), world rank " +
                              std::to_string(world_rank) + " (group " + "AB"[side_] + " rank " +
                              std::to_string(me_) + ")";
      const Reference reference{refs_[static_cast<std::size_t>(round - 1)].span(), "native"};
      error = check_result({who, send_copy, send_.span(), recv_.span(),
                            inter_expected(counts_, displs_, side_, data_salt(round)), reference})
                  .value_or("");
    }
    return error;
  }

 private:
  std::uint64_t data_salt(int round) const { return salt_ + static_cast<std::uint64_t>(round - 1) * 0x9e3779b9u; }

  const PairCache::Entry& entry_;
  int runs_;
  std::uint64_t salt_;
  int side_ = 0, me_ = 0;
  std::size_t my_bytes_ = 0, total_ = 0;
  std::vector<std::size_t> counts_, displs_;
  Buffer send_, recv_;
  std::vector<Buffer> refs_;
};

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

using Tested = checker::Tested<inter::InterAlgorithm>;

// Every listed algorithm that takes the case, against one native reference of its data.
void check_case(const Options& o, const Case& c, std::vector<Tested>& tested, const inter::InterAlgorithm& native,
                const Capabilities& caps, PairCache& pairs, int world_rank, std::uint64_t salt) {
  CaseRun run(c, o.call, pairs, salt);
  if (run.member()) run.compute_references(native);
  for (auto& t : tested) {
    const Support support = t.algo->supports(c.shape, o.mode);
    if (!support) {
      ++t.skipped;
      if (o.verbose && world_rank == 0)
        std::cout << "skip " << t.name << " " << c.describe() << ": " << support.reason << "\n";
      continue;
    }
    const std::string error = run.member() ? run.check(*t.algo, o.call, caps, world_rank) : "";
    int bad = error.empty() ? 0 : 1, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) std::cerr << "FAIL " << t.name << " " << c.describe() << ": " << error << std::endl;
    ++(any_bad ? t.failed : t.passed);
    if (o.verbose && world_rank == 0)
      std::cout << (any_bad ? "FAIL " : "ok   ") << t.name << " " << c.describe() << "\n";
  }
}

int run(const Options& o) {
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (!o.expect.empty()) return check_expected(o, world_rank);
  if (o.algorithms.empty()) throw std::invalid_argument("--algorithm NAME[,NAME...] is required");

  const auto& native = lookup(o.collective, "native");
  const Capabilities caps = probe_capabilities(MPI_COMM_WORLD);
  const auto find = [&](const std::string& name) -> const inter::InterAlgorithm& { return lookup(o.collective, name); };
  std::vector<Tested> tested =
      checker::offering<inter::InterAlgorithm>(o.algorithms, to_string(o.collective), o.call, caps, world_rank, find);
  if (tested.empty()) return kSkipped;  // the library lacks the form for every listed algorithm
  PairCache pairs(o.mode, world_size);
  std::uint64_t salt = 1;
  for (const Case& c : cases_for(o.collective, world_size, o.quick, o.pairs))
    check_case(o, c, tested, native, caps, pairs, world_rank, ++salt);
  return checker::summarize_algorithms(world_rank, std::string(to_string(o.collective)) + "/",
                                      " (" + std::string(to_string(o.mode)) + ", " + to_string(o.call) + ", " +
                                          std::to_string(world_size) + " processes)",
                                      tested, "shapes", "no supported shape at this process count");
}

}  // namespace

int main(int argc, char** argv) {
  return collrepro::checker::checker_main("inter_check", argc, argv, [](int c, char** v) { return run(parse(c, v)); });
}

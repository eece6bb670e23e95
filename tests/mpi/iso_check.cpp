// iso_check: validates registered isomorphic algorithms, bit for bit, against
// MPI_Neighbor_* on MPI_Dist_graph_create_adjacent (the registered `mpi-neighbor`) and against
// the computed expected result, over a matrix of neighbourhoods, tori and block sizes that
// fit the launched process count. One launch checks every listed algorithm (the ctest of a
// collective, call form and process count lists all of the catalogue's that offer it): each
// torus's communicators are made once and shared by them.
//
//   iso_check --collective neighbor-alltoall|neighbor-allgather|neighbor-alltoallw --algorithm NAME[,NAME...]
//             [--call blocking|nonblocking|persistent] [--quick] [--verbose]
//                                          (--quick: the core tori only, see tori())
//   iso_check --collective C --expect "name,name,..."   (fails if the registry has others, or an
//                                                        entry's supports/cost/lower_bound is off)
//   iso_check --setup-times                               (smoke test of iso::measure_setup)
//
// Every case: periodic tori with dimensions of size 1 and 2, s > p, self and repeated offsets,
// |c| >= p_j, d = 1..4, random neighbourhoods from fixed seeds, blocks of 0, 1, odd and
// > 1 MiB bytes, contiguous and gapped (reversed, with holes) layouts. The runner is prepared
// once in the call form asked for and started twice (three times for a nonblocking or
// persistent call) with new send contents each time (persistence); the send
// buffer must be unchanged, receive block i must be block i of R ⊖ C^i (allgather: the block
// of R ⊖ C^i), bytes outside the blocks keep the sentinel, and the whole receive buffer must
// equal MPI's. Unsupported cases are skipped with their reason; an algorithm for which every
// case is skipped fails, so no algorithm can pass by rejecting everything.
#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "check_main.hpp"
#include "collrepro/buffers.hpp"
#include "collrepro/isomorphic.hpp"
#include "collrepro/validation.hpp"

using namespace collrepro;
using namespace collrepro::iso;

namespace {

struct Options {
  Collective collective = Collective::NeighborAlltoall;
  std::vector<std::string> algorithms;  // --algorithm a,b,c
  std::string expect;
  CallForm call = CallForm::Blocking;
  bool setup_times = false, verbose = false, quick = false;
};

Options parse(int argc, char** argv) {
  Options o;
  collrepro::checker::parse_flags(argc, argv, [&](const std::string& a, auto next) {
    if (a == "--collective") o.collective = collective_from_string(next());
    else if (a == "--algorithm") o.algorithms = checker::split_names(next());
    else if (a == "--expect") o.expect = next();
    else if (a == "--call") {
      const std::string c = next();
      const auto form = contract::parse<CallForm>(c);
      if (!form) throw std::invalid_argument("--call blocking|nonblocking|persistent, got '" + c + "'");
      o.call = *form;
    }
    else if (a == "--setup-times") o.setup_times = true;
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--quick") o.quick = true;
    else return false;
    return true;
  });
  return o;
}

// ---------------------------------------------------------------------------------------
// The case matrix.

struct Case {
  Shape shape;
  bool gapped = false;  // blocks in reverse order with a 3-byte hole before each
  std::string describe() const { return shape.describe() + (gapped ? " layout=gapped" : ""); }
};

// The cases of one torus: they share one IsoComm.
struct TorusCases {
  Neighborhood neighborhood;
  std::vector<int> dims;  // 0 entries: MPI_Dims_create
  std::vector<Case> cases;
};

constexpr std::size_t kLarge = (std::size_t{1} << 20) + 3;
// Starts per prepared runner, new send contents each: a nonblocking or persistent call gets one
// more (several starts of one init).
int starts(CallForm call) { return call == CallForm::Blocking ? 2 : 3; }

// Random neighbourhoods from fixed seeds: the same list on every process and at every np.
std::vector<Neighborhood> random_neighborhoods() {
  std::vector<Neighborhood> out;
  std::mt19937 rng(20160128);
  for (int k = 0; k < 5; ++k) {
    const int d = 1 + static_cast<int>(rng() % 4);
    const std::size_t s = 1 + rng() % 12;
    std::vector<Offset> offsets;
    for (std::size_t i = 0; i < s; ++i) {
      if (i > 0 && rng() % 5 == 0) {
        offsets.push_back(offsets[rng() % offsets.size()]);  // a repeated offset
        continue;
      }
      Offset c;
      for (int j = 0; j < d; ++j) c.push_back(static_cast<int>(rng() % 11) - 5);
      offsets.push_back(c);
    }
    out.push_back(Neighborhood::list(offsets));
  }
  return out;
}

// (neighbourhood, dims) pairs for n processes; dims entries 0 are chosen by MPI_Dims_create.
// With `quick`, only the core tori (marked *) remain; together they still cover d = 1..4, dims
// of size 1 and 2, s > p with repeated targets, self and repeated offsets, |c| >= p_j, the
// Algorithm 1 erratum (|c| = 2), a random neighbourhood and > 1 MiB blocks.
std::vector<std::pair<Neighborhood, std::vector<int>>> tori(int n, bool quick) {
  std::vector<std::pair<Neighborhood, std::vector<int>>> v;
  auto add = [&](bool core, const Neighborhood& nbh, std::vector<int> dims) {
    if (core || !quick) v.push_back({nbh, std::move(dims)});
  };
  auto parse = [](const char* text) { return Neighborhood::parse(text); };
  add(true, parse("moore:d=1,r=1"), {0});      // * first: gets the > 1 MiB blocks
  add(false, parse("moore:d=1,r=3"), {0});     // |c| >= p_j for small n
  add(false, parse("moore:d=2,r=1"), {0, 0});  // s = 8 > p for n < 8
  add(false, parse("moore:d=2,r=1"), {1, n});  // a dimension of size 1
  const std::vector<int> thin = n % 2 == 0 ? std::vector<int>{2, n / 2} : std::vector<int>{n, 1};
  add(true, parse("moore:d=2,r=2"), thin);         // * size 2 (+1 and -1 coincide) or 1; |c| = 2
  add(true, parse("moore:d=3,r=1"), {0, 0, 0});    // * s = 26 > p: many repeated targets
  add(false, parse("octant:d=3,r=2"), {0, 0, 0});  // |c| = 2 in the first dimension: Alg. 1 erratum
  add(false, parse("shells:d=2,r=1+3"), {0, 0});
  add(false, parse("vonneumann:d=3,r=2"), {0, 0, 0});
  add(false, parse("moore:d=4,r=1"), {0, 0, 0, 0});                                             // d = 4, s = 80
  add(true, parse("list:(1,0,0),(0,1,0),(0,0,1),(1,1,0),(1,0,1),(0,1,1),(1,1,1)"), {0, 0, 0});  // * §2 octant
  add(true, parse("list:(0,0),(1,0),(1,0),(-5,3),(0,0),(2,-7),(1,0)"), {0, 0});                 // * self, repeats, long
  add(false, parse("list:(0,0),(1,0),(1,0),(-5,3),(0,0),(2,-7),(1,0)"), {1, 0});
  add(false, parse("list:(-1,-2),(-3,0),(0,-1)"), {0, 0});  // negative offsets only
  add(false, parse("list:(0)"), {0});                       // s = 1, self only
  add(true, parse("list:(9)"), {0});                        // * s = 1, long offset
  bool first = true;
  for (const Neighborhood& r : random_neighborhoods()) {  // * the first one (d = 4)
    add(first, r, std::vector<int>(static_cast<std::size_t>(r.dims()), 0));
    first = false;
  }
  if (n <= 4) add(false, parse("moore:d=3,r=3"), {0, 0, 0});  // s = 342 >> p (342 steps: too slow beyond 4)
  return v;
}

bool seed_rule_applies(const Neighborhood& n) {
  for (const Offset& c : n.offsets())
    if (norm1(c) > n.dims()) return false;
  return true;
}

// Block sizes rotate over the tori so that every size meets every kind of torus somewhere
// without running the full product: each torus gets 1 byte; the smaller neighbourhoods also
// one of {0, 13, 64} and, on every other torus (always for all-to-allw), 7 bytes in the gapped
// layout; the one-dimensional Moore torus gets > 1 MiB blocks at up to 4 processes (where the
// copies are cheap enough on an oversubscribed machine); all-to-allw adds the seed's rule.
std::vector<TorusCases> cases_for(Collective c, int n, bool quick) {
  std::vector<TorusCases> out;
  std::size_t k = 0;
  for (auto& [nbh, dims] : tori(n, quick)) {
    TorusCases t{nbh, dims, {}};
    const bool w = c == Collective::NeighborAlltoallw, small = nbh.size() < 30;
    const std::size_t rotating = std::vector<std::size_t>{0, 13, 64}[k % 3];
    t.cases.push_back({Shape::regular(nbh, 1, dims), false});
    if (small) t.cases.push_back({Shape::regular(nbh, rotating, dims), w});
    if (small && (w || k % 2 == 0)) t.cases.push_back({Shape::regular(nbh, 7, dims), true});
    if (k == 0 && n <= 4) t.cases.push_back({Shape::regular(nbh, kLarge, dims), w});
    if (w && seed_rule_applies(nbh))
      for (std::size_t mhat : k % 2 ? std::vector<std::size_t>{1, 8} : std::vector<std::size_t>{0, 3})
        t.cases.push_back({Shape::seed_irregular(nbh, mhat, dims), mhat % 2 == 1});
    out.push_back(std::move(t));
    ++k;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Buffers and checks.

// Exit code of a form the algorithm or library lacks (ctest SKIP_RETURN_CODE,
// tests/mpi/catalogue/isomorphic.cmake).
constexpr int kSkipped = 77;

// The salt of one start of one case: every start sends new contents.
std::uint64_t start_salt(std::size_t case_id, int round) {
  return (std::uint64_t{case_id} << 8) | static_cast<std::uint64_t>(round);
}

// Contiguous, or reversed with a 3-byte hole before each block.
Args layout(Collective c, const Case& k) {
  Args a = Args::contiguous(c, k.shape);
  if (!k.gapped) return a;
  auto gap = [](std::vector<std::size_t>& displs, const std::vector<std::size_t>& counts) {
    std::size_t at = 0;
    for (std::size_t i = counts.size(); i-- > 0;) {
      at += 3;
      displs[i] = std::exchange(at, at + counts[i]);
    }
  };
  gap(a.recv_displs, a.recv_counts);
  gap(a.send_displs, a.send_counts);
  return a;
}

const IsoAlgorithm& lookup(Collective c, const std::string& name) {
  const auto* a = dynamic_cast<const IsoAlgorithm*>(Registry::global().find(c, name));
  if (!a) throw std::invalid_argument("no isomorphic " + std::string(to_string(c)) + " algorithm named '" + name + "'");
  return *a;
}

// Runs one case; returns this rank's first error (empty when correct). Every start runs on every
// rank (the calls are collective), even after an error.
std::string run_case(const IsoAlgorithm& algo, const IsoAlgorithm& reference, const IsoComm& comm, Collective c,
                     CallForm call, const Case& k, std::size_t case_id) {
  Args args = layout(c, k), ref_args = args;
  Buffer send(args.send_extent()), recv(args.recv_extent()), ref(args.recv_extent());
  args.send = ref_args.send = send.data();
  args.recv = recv.data();
  ref_args.recv = ref.data();
  const auto runner = algo.prepare_call(comm, args, call);
  const auto mpi = reference.prepare(comm, ref_args);
  const NeighborKind kind = c == Collective::NeighborAllgather ? NeighborKind::Allgather : NeighborKind::Alltoall;
  std::string first_error;
  for (int round = 0; round < starts(call); ++round) {
    const std::uint64_t salt = start_salt(case_id, round);
    send.fill(kSentinel);
    fill_blocks(send.span(), neighbor_send_blocks(args.send_counts, args.send_displs, comm.rank(), salt));
    const std::vector<std::byte> send_copy(send.span().begin(), send.span().end());
    recv.fill(kSentinel);
    ref.fill(kSentinel);
    runner->run();
    mpi->run();
    const std::string who = "start " + std::to_string(round + 1) + " (" + to_string(call) + "), torus rank " +
                            std::to_string(comm.rank());
    if (!first_error.empty()) continue;
    if (auto error = check_result({who, send_copy, send.span(), recv.span(),
                                   neighbor_expected(kind, args.recv_counts, args.recv_displs, comm.sources(), salt),
                                   Reference{ref.span(), reference.info().name}}))
      first_error = *error;
  }
  return first_error;
}

// The registry's side of each algorithm, without communication: it supports a plain shape,
// the native baselines say no without distributed graphs, and its cost is at least the
// family's lower bound in both terms.
std::string check_interface(const IsoAlgorithm& a, Collective c) {
  Capabilities without_dist_graph;
  without_dist_graph.dist_graph = false;
  std::vector<Shape> shapes = {Shape::regular(Neighborhood::moore(2, 1), 64),
                               Shape::regular(Neighborhood::moore(3, 3), 1),
                               Shape::regular(Neighborhood::parse("list:(0,0),(1,0),(1,0),(2,-7)"), 7)};
  if (c == Collective::NeighborAlltoallw) shapes.push_back(Shape::seed_irregular(Neighborhood::moore(3, 1), 5));
  for (const Shape& shape : shapes) {
    if (const Support ok = a.supports(shape, Capabilities{}); !ok)
      return "rejects " + shape.describe() + ": " + ok.reason;
    if (a.info().kind == Kind::Native && a.supports(shape, without_dist_graph))
      return "accepts " + shape.describe() + " without distributed graphs";
    const Cost cost = a.cost(shape), bound = a.lower_bound(shape);
    if (!(cost.alpha_terms >= bound.alpha_terms && cost.beta_bytes >= bound.beta_bytes && bound.alpha_terms > 0))
      return "cost below the lower bound for " + shape.describe();
  }
  if (a.supports(Shape::seed_irregular(Neighborhood::moore(2, 2), 4), Capabilities{}))
    return "accepts the seed's block rule where |C| > d";
  if (c != Collective::NeighborAlltoallw &&
      a.supports(Shape::seed_irregular(Neighborhood::moore(2, 1), 4), Capabilities{}))
    return "accepts irregular blocks outside neighbor-alltoallw";
  return {};
}

int check_expected(const Options& o, int world_rank) {
  std::set<std::string> expected;
  std::string list = o.expect;
  std::replace(list.begin(), list.end(), ';', ',');
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) expected.insert(name);
  int missing = 0;
  for (const auto* a : Registry::global().family<IsoAlgorithm>(o.collective)) {
    if (!expected.count(a->info().name)) {
      if (world_rank == 0)
        std::cerr << "registered " << to_string(o.collective) << " algorithm '" << a->info().name
                  << "' has no MPI test: add it to tests/mpi/isomorphic.cmake\n";
      ++missing;
    }
    if (const std::string bad = check_interface(*a, o.collective); !bad.empty()) {
      if (world_rank == 0) std::cerr << to_string(o.collective) << "/" << a->info().name << ": " << bad << "\n";
      ++missing;
    }
  }
  for (const auto& name : expected)
    if (!dynamic_cast<const IsoAlgorithm*>(Registry::global().find(o.collective, name))) {
      if (world_rank == 0) std::cerr << "tested algorithm '" << name << "' is not registered\n";
      ++missing;
    }
  if (world_rank == 0) std::cout << (missing ? 0 : 1) << " passed, " << (missing ? 1 : 0) << " failed\n";
  return missing ? 1 : 0;
}

int check_setup_times(int world_rank) {
  const Shape shape = Shape::regular(Neighborhood::moore(2, 1), 8);
  const SetupTimes t = measure_setup(MPI_COMM_WORLD, shape, probe_capabilities(MPI_COMM_WORLD), 3);
  int bad = 0;
  for (const auto* v :
       {&t.dist_graph_create_adjacent, &t.dist_graph_create, &t.iso_neighborhood_create, &t.iso_alltoall_init}) {
    if (v->size() != 3) ++bad;
    for (double x : *v)
      if (!(x >= 0 && x < 60)) ++bad;
  }
  if (world_rank == 0)
    std::cout << "setup medians [ms]: adjacent " << 1e3 * median(t.dist_graph_create_adjacent) << ", create "
              << 1e3 * median(t.dist_graph_create) << ", iso create " << 1e3 * median(t.iso_neighborhood_create)
              << ", iso alltoall init " << 1e3 * median(t.iso_alltoall_init) << "\n"
              << (bad ? 0 : 1) << " passed, " << (bad ? 1 : 0) << " failed\n";
  return bad ? 1 : 0;
}

using Tested = checker::Tested<IsoAlgorithm>;

// One case for every listed algorithm that takes it, on the torus's communicators.
void check_case(const Options& o, const Case& k, std::size_t id, std::vector<Tested>& tested,
                const IsoAlgorithm& reference, const IsoComm& comm, const Capabilities& caps, int world_rank) {
  for (auto& t : tested) {
    const Support support = t.algo->supports(k.shape, caps);
    if (!support) {
      ++t.skipped;
      if (o.verbose && world_rank == 0)
        std::cout << "skip " << t.name << " " << k.describe() << ": " << support.reason << "\n";
      continue;
    }
    const double t0 = MPI_Wtime();
    const std::string error = run_case(*t.algo, reference, comm, o.collective, o.call, k, id);
    const double seconds = MPI_Wtime() - t0;
    int bad = error.empty() ? 0 : 1, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) std::cerr << "FAIL " << t.name << " " << k.describe() << ": " << error << std::endl;
    ++(any_bad ? t.failed : t.passed);
    if (o.verbose && world_rank == 0)
      std::cout << (any_bad ? "FAIL " : "ok   ") << t.name << " " << k.describe() << " ("
                << static_cast<int>(seconds * 1e3) << " ms)\n";
  }
}

int run(const Options& o) {
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (o.setup_times) return check_setup_times(world_rank);
  if (!o.expect.empty()) return check_expected(o, world_rank);
  if (o.algorithms.empty()) throw std::invalid_argument("--algorithm NAME[,NAME...] is required");

  const IsoAlgorithm& reference = lookup(o.collective, "mpi-neighbor");
  const Capabilities caps = probe_capabilities(MPI_COMM_WORLD);
  const auto find = [&](const std::string& name) -> const IsoAlgorithm& { return lookup(o.collective, name); };
  std::vector<Tested> tested =
      checker::offering<IsoAlgorithm>(o.algorithms, to_string(o.collective), o.call, caps, world_rank, find);
  if (tested.empty()) return kSkipped;  // the library lacks the form for every listed algorithm
  std::size_t id = 0;
  for (const TorusCases& torus : cases_for(o.collective, world_size, o.quick)) {
    const IsoComm comm = IsoComm::create(MPI_COMM_WORLD, torus.neighborhood, caps, torus.dims);
    for (const Case& k : torus.cases) check_case(o, k, ++id, tested, reference, comm, caps, world_rank);
  }
  return checker::summarize_algorithms(world_rank, std::string(to_string(o.collective)) + "/",
                                      " (" + std::string(to_string(o.call)) + ", " + std::to_string(world_size) +
                                          " processes)",
                                      tested, "cases", "every case was skipped");
}

}  // namespace

int main(int argc, char** argv) {
  return collrepro::checker::checker_main("iso_check", argc, argv, [](int c, char** v) { return run(parse(c, v)); });
}

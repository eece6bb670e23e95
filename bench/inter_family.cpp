// The inter-group family adapter (collrepro::inter::InterAlgorithm): Allgather and
// Allgatherv between two disjoint groups A (p processes) and B (q processes).
//
// Sweep fields: groups (ratios scaled to the process count, or explicit sizes), blocks
// (kA:kB of the block sizes; the larger side gets the swept size, "1:0" = half-duplex A->B),
// distributions (Allgatherv block sizes per group: equal | arithmetic | random), sizes,
// placements, pair_mode, algorithms. Validation: check_inter_result() (computed expected
// data, sentinel outside the blocks, send buffer unchanged) and byte equality with the
// family's native algorithm (Kind::Native) whenever that supports the shape.
#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <tuple>

#include "collrepro/buffers.hpp"
#include "collrepro/group_pair.hpp"
#include "collrepro/intergroup.hpp"
#include "errors.hpp"
#include "family.hpp"
#include "units.hpp"

namespace collbench {

namespace {

using collrepro::Algorithm;
using collrepro::Collective;
using collrepro::GroupPair;
using collrepro::PairMode;
using collrepro::inter::Args;
using collrepro::inter::InterAlgorithm;
using collrepro::inter::Shape;

// ------------------------------------------------------------------ shapes (pure)

class InterShape final : public PointShape {
 public:
  InterShape(Shape shape, PairMode mode, std::string distribution, std::size_t msg_bytes)
      : shape_(std::move(shape)), mode_(mode), distribution_(std::move(distribution)) {
    cols_.p = shape_.p;
    cols_.q = shape_.q;
    cols_.ka = shape_.max_block(0);
    cols_.kb = shape_.max_block(1);
    cols_.msg_bytes = msg_bytes;
  }
  const ShapeColumns& columns() const override { return cols_; }
  std::string describe() const override {
    std::string s = "p=" + std::to_string(cols_.p) + " q=" + std::to_string(cols_.q) + " ka=" + format_bytes(cols_.ka) +
                    " kb=" + format_bytes(cols_.kb);
    if (distribution_ != "equal") s += " " + distribution_;
    if (mode_ == PairMode::Intracomm) s += " intracomm";
    return s;
  }
  const Shape& shape() const { return shape_; }
  PairMode mode() const { return mode_; }

 private:
  Shape shape_;
  PairMode mode_;
  std::string distribution_;
  ShapeColumns cols_;
};

long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }

std::pair<int, int> resolve_groups(const GroupSpec& g, int nprocs) {
  if (g.kind == GroupSpec::Kind::Sizes) {
    if (g.a + g.b > nprocs)
      throw config_error(g.field, "= \"" + g.text + "\" needs " + std::to_string(g.a + g.b) + " processes, got " +
                                      std::to_string(nprocs) + " (use -n " + std::to_string(g.a + g.b) +
                                      " or smaller groups)");
    return {static_cast<int>(g.a), static_cast<int>(g.b)};
  }
  const long d = gcd(g.a, g.b), a = g.a / d, b = g.b / d, sum = a + b;
  if (nprocs % sum != 0)
    throw config_error(g.field, "= \"" + g.text + "\" needs a multiple of " + std::to_string(sum) + " processes, got " +
                                    std::to_string(nprocs) + " (use -n " + std::to_string(sum * std::max(1L, nprocs / sum)) +
                                    " or a ratio that divides " + std::to_string(nprocs) + ")");
  return {static_cast<int>(a * nprocs / sum), static_cast<int>(b * nprocs / sum)};
}

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> d = {"equal", "arithmetic", "random"};
  return d;
}

// Block sizes of a group of n processes with nominal per-process size s.
//   equal       s each
//   arithmetic  2 (i+1) ceil(s/n): seed 001's generator (mean ~ s, largest ~ 2s)
//   random      uniform in [0, 2s] from a fixed hash of (i, n, s): mean ~ s, reproducible
std::vector<std::size_t> distribute(const std::string& dist, std::size_t s, int n) {
  const auto N = static_cast<std::size_t>(n);
  std::vector<std::size_t> v(N, s);
  if (dist == "arithmetic") {
    const std::size_t unit = (s + N - 1) / N;
    for (std::size_t i = 0; i < N; ++i) v[i] = 2 * (i + 1) * unit;
  } else if (dist == "random") {
    for (std::size_t i = 0; i < N; ++i) {
      std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (N << 32) ^ s;
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      x ^= x >> 31;
      v[i] = s == 0 ? 0 : static_cast<std::size_t>(x % (2 * s + 1));
    }
  }
  return v;
}

const InterAlgorithm& as_inter(const Algorithm& a) { return dynamic_cast<const InterAlgorithm&>(a); }
const InterShape& as_inter(const PointShape& s) { return dynamic_cast<const InterShape&>(s); }

// The family's native algorithm of collective c (Kind::Native), or nullptr.
const InterAlgorithm* native_of(Collective c) {
  for (const auto* a : collrepro::Registry::global().family<InterAlgorithm>(c))
    if (a->info().kind == collrepro::Kind::Native) return a;
  return nullptr;
}

std::string side_name(int side) { return side == 0 ? "A" : "B"; }

// ------------------------------------------------------------------ prepared point (MPI)

class InterPoint final : public PreparedPoint {
 public:
  // pair == nullptr: this rank is not part of the point (idle).
  InterPoint(const InterAlgorithm& algo, const InterShape& shape, const GroupPair* pair, const GroupPair* native_pair,
             const InterAlgorithm* native, std::uint64_t salt, int world_rank)
      : algo_(algo), native_(native), pair_(pair), native_pair_(native_pair), salt_(salt), world_rank_(world_rank) {
    if (!pair_) return;
    const Shape& s = shape.shape();
    const int side = pair_->side(), me = pair_->local_rank();
    const std::size_t mine = s.blocks(side)[static_cast<std::size_t>(me)];
    counts_ = s.blocks(1 - side);
    displs_.resize(counts_.size());
    std::exclusive_scan(counts_.begin(), counts_.end(), displs_.begin(), std::size_t{0});
    send_ = collrepro::Buffer(mine);
    recv_ = collrepro::Buffer(std::accumulate(counts_.begin(), counts_.end(), std::size_t{0}));
    collrepro::fill_pattern(send_.span(), side, me, salt_);
    args_ = Args{send_.data(), mine, recv_.data(), counts_, displs_};
    runner_ = algo_.prepare(*pair_, args_);
  }

  void run() override {
    if (runner_) runner_->run();
  }

  std::optional<std::string> validate() override {
    if (!pair_) return std::nullopt;
    const int side = pair_->side(), me = pair_->local_rank();
    const std::string who = "world rank " + std::to_string(world_rank_) + " (group " + side_name(side) + " rank " +
                            std::to_string(me) + ")";
    std::vector<std::byte> send_copy(send_.data(), send_.data() + send_.size());
    recv_.fill(collrepro::kSentinel);
    runner_->run();
    std::optional<std::string> error;
    if (std::memcmp(send_copy.data(), send_.data(), send_.size()) != 0)
      error = who + ": the send buffer was modified";
    else if (auto bad = collrepro::check_inter_result(recv_.span(), counts_, displs_, side, salt_))
      error = who + ": " + *bad;
    // Compare with the native result (collective over both groups: run it even after an error).
    if (native_ && native_pair_) {
      collrepro::Buffer ref(recv_.size());
      Args ref_args{send_.data(), send_.size(), ref.data(), counts_, displs_};
      native_->prepare(*native_pair_, ref_args)->run();
      if (!error) {
        for (std::size_t i = 0; i < recv_.size(); ++i)
          if (recv_.data()[i] != ref.data()[i]) {
            error = who + ": byte " + std::to_string(i) + " of the receive buffer differs from the native " +
                    native_->info().name + " result (got " + std::to_string(std::to_integer<int>(recv_.data()[i])) +
                    ", native " + std::to_string(std::to_integer<int>(ref.data()[i])) + ")";
            break;
          }
      }
    }
    return error;
  }

 private:
  const InterAlgorithm& algo_;
  const InterAlgorithm* native_;
  const GroupPair* pair_;
  const GroupPair* native_pair_;
  std::uint64_t salt_;
  int world_rank_;
  std::vector<std::size_t> counts_, displs_;
  collrepro::Buffer send_, recv_;
  Args args_;                                   // referenced by runner_: declared before it
  std::unique_ptr<collrepro::Runner> runner_;
};

// ------------------------------------------------------------------ session (MPI)

class InterSession final : public FamilySession {
 public:
  InterSession(const RunEnvironment& env, bool validation) : env_(env), validation_(validation) {
    collrepro::check(MPI_Comm_rank(env_.world, &world_rank_), "MPI_Comm_rank");
  }

  std::unique_ptr<PreparedPoint> prepare(const Algorithm& algorithm, const PointShape& point_shape,
                                         const std::string& placement, std::uint64_t salt) override {
    const auto& algo = as_inter(algorithm);
    const auto& shape = as_inter(point_shape);
    const Context& ctx = context(placement, shape.shape().p, shape.shape().q, shape.mode());
    const InterAlgorithm* native = nullptr;
    const GroupPair* native_pair = nullptr;
    if (validation_) {
      native = native_of(algo.info().collective);
      if (native == &algo || (native && !native->supports(shape.shape(), PairMode::Intercomm))) native = nullptr;
#ifdef COLLREPRO_SMPI
      native = nullptr;  // SimGrid SMPI has no intercommunicator for the native reference
#endif
      if (native) {
        const Context& ref = context(placement, shape.shape().p, shape.shape().q, PairMode::Intercomm);
        native_pair = ref.pair ? &*ref.pair : nullptr;
      }
    }
    return std::make_unique<InterPoint>(algo, shape, ctx.pair ? &*ctx.pair : nullptr, native_pair, native, salt,
                                        world_rank_);
  }

  nlohmann::json placement_report() const override {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [key, ctx] : contexts_) {
      const auto& [placement, p, q, mode] = key;
      if (mode != PairMode::Intercomm && contexts_.count({placement, p, q, PairMode::Intercomm})) continue;
      out.push_back({{"placement", placement},
                     {"p", p},
                     {"q", q},
                     {"effective", ctx->placement.effective},
                     {"note", ctx->placement.note},
                     {"sides", ctx->placement.sides}});
    }
    return out;
  }

 private:
  struct Context {
    PlacementResult placement;
    std::optional<GroupPair> pair;
  };
  using Key = std::tuple<std::string, int, int, PairMode>;

  const Context& context(const std::string& placement, int p, int q, PairMode mode) {
    const Key key{placement, p, q, mode};
    auto it = contexts_.find(key);
    if (it == contexts_.end()) {
      auto ctx = std::make_unique<Context>();
      ctx->placement = place_groups(placement, p, q, env_.localities);
      ctx->pair = GroupPair::create(env_.world, ctx->placement.sides, mode);
      it = contexts_.emplace(key, std::move(ctx)).first;
    }
    return *it->second;
  }

  RunEnvironment env_;
  bool validation_;
  int world_rank_ = 0;
  std::map<Key, std::unique_ptr<Context>> contexts_;
};

// ------------------------------------------------------------------ adapter

class InterFamily final : public FamilyAdapter {
 public:
  std::string name() const override { return "inter-group"; }
  bool handles(Collective c) const override { return c == Collective::Allgather || c == Collective::Allgatherv; }

  std::vector<std::string> sweep_fields(Collective c) const override {
    std::vector<std::string> f = {"collective", "algorithms", "pair_mode", "groups", "blocks", "sizes", "placements"};
    if (c == Collective::Allgatherv) f.push_back("distributions");
    return f;
  }
  std::vector<std::string> placements() const override { return placement_names(); }

  std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const override {
    const Collective c = collrepro::collective_from_string(sweep.collective);
    const PairMode mode = sweep.pair_mode == "intracomm" ? PairMode::Intracomm : PairMode::Intercomm;
    std::vector<std::string> dists = {"equal"};
    if (c == Collective::Allgatherv) {
      dists = sweep.distributions.values;
      for (std::size_t i = 0; i < dists.size(); ++i)
        if (std::find(distribution_names().begin(), distribution_names().end(), dists[i]) == distribution_names().end())
          throw config_error(sweep.distributions.at(i),
                             "= \"" + dists[i] + "\" is not a distribution (use equal, arithmetic or random)");
    }
    std::vector<std::shared_ptr<const PointShape>> out;
    for (const GroupSpec& g : sweep.groups) {
      const auto [p, q] = resolve_groups(g, nprocs);
      for (const BlockRatio& b : sweep.blocks)
        for (const std::string& dist : dists)
          for (std::size_t size : sweep.sizes) {
            const std::size_t big = std::max(b.ka, b.kb);
            const std::size_t sa = size / big * b.ka + size % big * b.ka / big;
            const std::size_t sb = size / big * b.kb + size % big * b.kb / big;
            Shape shape = c == Collective::Allgather ? Shape::uniform(p, q, sa, sb)
                                                     : Shape{p, q, distribute(dist, sa, p), distribute(dist, sb, q)};
            out.push_back(std::make_shared<InterShape>(std::move(shape), mode, dist, size));
          }
    }
    return out;
  }

  std::vector<const Algorithm*> algorithms(Collective c) const override {
    std::vector<const Algorithm*> out;
    for (const auto* a : collrepro::Registry::global().family<InterAlgorithm>(c)) out.push_back(a);
    return out;
  }
  collrepro::Support supports(const Algorithm& a, const PointShape& s) const override {
#ifdef COLLREPRO_SMPI
    if (as_inter(s).mode() == PairMode::Intercomm)
      return collrepro::Support::no("SimGrid SMPI has no intercommunicators (MPI_Intercomm_create): use pair_mode: intracomm");
#endif
    return as_inter(a).supports(as_inter(s).shape(), as_inter(s).mode());
  }
  collrepro::Cost cost(const Algorithm& a, const PointShape& s) const override { return as_inter(a).cost(as_inter(s).shape()); }
  collrepro::Cost bound(const Algorithm& a, const PointShape& s) const override {
    return as_inter(a).lower_bound(as_inter(s).shape());
  }
  std::unique_ptr<FamilySession> open(const RunEnvironment& env, bool validation) const override {
    return std::make_unique<InterSession>(env, validation);
  }
};

}  // namespace

const FamilyAdapter& inter_family() {
  static const InterFamily family;
  return family;
}

}  // namespace collbench

// The inter-group family adapter (collrepro::inter::InterAlgorithm): Allgather and
// Allgatherv between two disjoint groups A (p processes) and B (q processes).
//
// Sweep keys: inter_family.hpp. Shape columns: p, q, ka, kb (the largest block of each
// group), bytes_a, bytes_b (the sums K_A, K_B), distribution, dist_seed, pair_mode (the sweep
// key, in the contract's spelling; a column since contract version 8). Validation:
// check_inter_result() (computed expected data, sentinel outside the blocks, send buffer
// unchanged) and byte equality with the family's native algorithm (Kind::Native, blocking)
// whenever that supports the shape. A nonblocking or persistent call is validated over
// kStartsValidated starts of the one prepared runner, the send buffer rewritten with another
// pattern before each, so that a copy cached at init fails.
#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <tuple>

#include "collrepro/buffers.hpp"
#include "collrepro/group_pair.hpp"
#include "collrepro/intergroup.hpp"
#include "base/errors.hpp"
#include "config/config_yaml.hpp"
#include "families/family.hpp"
#include "families/inter_family.hpp"
#include "config/units.hpp"
#include "families/validate.hpp"

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
  InterShape(Shape shape, PairMode mode, Distribution distribution, std::size_t msg_bytes)
      : shape_(std::move(shape)), mode_(mode), distribution_(std::move(distribution)), msg_bytes_(msg_bytes) {}
  std::size_t msg_bytes() const override { return msg_bytes_; }
  // A rank of side X sends its own block and receives every block of the other side.
  std::size_t buffer_bytes() const override {
    return std::max(shape_.max_block(0) + shape_.total(1), shape_.max_block(1) + shape_.total(0));
  }
  ShapeValues columns() const override {
    const bool random = distribution_.kind == Distribution::Kind::Random;
    return {{"p", std::to_string(shape_.p)},
            {"q", std::to_string(shape_.q)},
            {"ka", std::to_string(shape_.max_block(0))},
            {"kb", std::to_string(shape_.max_block(1))},
            {"bytes_a", std::to_string(total(shape_.blocks(0)))},
            {"bytes_b", std::to_string(total(shape_.blocks(1)))},
            {"distribution", distribution_.name()},
            {"dist_seed", random ? std::to_string(distribution_.seed) : ""},
            {"pair_mode", collrepro::to_string(mode_)}};
  }
  std::string describe() const override {
    std::string s = "p=" + std::to_string(shape_.p) + " q=" + std::to_string(shape_.q) +
                    " ka=" + format_bytes(shape_.max_block(0)) + " kb=" + format_bytes(shape_.max_block(1));
    if (distribution_.kind != Distribution::Kind::Equal) s += " " + distribution_.name();
    if (distribution_.kind == Distribution::Kind::Random) s += ":" + std::to_string(distribution_.seed);
    if (mode_ == PairMode::Intracomm) s += " intracomm";
    return s;
  }
  const Shape& shape() const { return shape_; }
  PairMode mode() const { return mode_; }

 private:
  static std::size_t total(const std::vector<std::size_t>& v) { return std::accumulate(v.begin(), v.end(), std::size_t{0}); }

  Shape shape_;
  PairMode mode_;
  Distribution distribution_;
  std::size_t msg_bytes_;
};

long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }

std::pair<int, int> resolve_groups(const GroupSpec& g, int nprocs) {
  if (g.kind == GroupSpec::Kind::Sizes) {
    if (g.a + g.b > nprocs)
      throw config_error(g.field, "= " + quote(g.text) + " needs " + std::to_string(g.a + g.b) + " processes, got " +
                                      std::to_string(nprocs) + " (use -n " + std::to_string(g.a + g.b) +
                                      " or smaller groups)");
    return {static_cast<int>(g.a), static_cast<int>(g.b)};
  }
  const long d = gcd(g.a, g.b), a = g.a / d, b = g.b / d, sum = a + b;
  if (nprocs % sum != 0)
    throw config_error(g.field, "= " + quote(g.text) + " needs a multiple of " + std::to_string(sum) + " processes, got " +
                                    std::to_string(nprocs) + " (use -n " + std::to_string(sum * std::max(1L, nprocs / sum)) +
                                    " or a ratio that divides " + std::to_string(nprocs) + ")");
  return {static_cast<int>(a * nprocs / sum), static_cast<int>(b * nprocs / sum)};
}

const InterAlgorithm& as_inter(const Algorithm& a) { return dynamic_cast<const InterAlgorithm&>(a); }
const InterShape& as_inter(const PointShape& s) { return dynamic_cast<const InterShape&>(s); }

std::string side_name(int side) { return side == 0 ? "A" : "B"; }

// ------------------------------------------------------------------ prepared point (MPI)

class InterPoint final : public RunnerPoint {
 public:
  // pair == nullptr: this rank is not part of the point (idle).
  InterPoint(const InterAlgorithm& algo, const InterShape& shape, const GroupPair* pair, const GroupPair* native_pair,
             const InterAlgorithm* native, std::uint64_t salt, int world_rank, collrepro::CallForm call,
             const RunEnvironment& env)
      : algo_(algo), native_(native), pair_(pair), native_pair_(native_pair), salt_(salt), world_rank_(world_rank),
        starts_(call == collrepro::CallForm::Blocking ? 1 : kStartsValidated) {
    if (pair_) allocate(shape.shape());
    const collrepro::Capabilities& caps = env.caps;
    runner_ = build(env.world, call, [&] { return pair_ ? algo_.prepare_call(*pair_, args_, call, caps) : nullptr; });
  }


  std::optional<std::string> validate() override {
    if (!pair_) return std::nullopt;
    const int side = pair_->side(), me = pair_->local_rank();
    std::optional<std::string> error;
    // Every start runs on every rank (the calls are collective), even after an error.
    for (int start = 0; start < starts_; ++start) {
      const std::uint64_t salt = salt_ + static_cast<std::uint64_t>(start) * kStartSalt;
      if (send_.holds_data()) collrepro::fill_pattern(send_.span(), side, me, salt);
      ValidationRun v{"world rank " + std::to_string(world_rank_) + " (group " + side_name(side) + " rank " +
                          std::to_string(me) + ")" + (starts_ > 1 ? ", start " + std::to_string(start + 1) : ""),
                      &send_, &recv_, {}, [&] { runner_->run(); }, {}, "", collrepro::inter_expected(counts_, displs_, side, salt)};
      if (native_pair_) v.compare_with(native_, *native_pair_, args_);
      auto e = validate_run(v);
      if (!error) error = std::move(e);
    }
    if (starts_ > 1 && send_.holds_data()) collrepro::fill_pattern(send_.span(), side, me, salt_);
    return error;
  }

 protected:
  collrepro::Runner* runner() const override { return runner_.get(); }

 private:
  // Starts of one prepared nonblocking or persistent call in validate(), each on new send data.
  static constexpr int kStartsValidated = 3;
  static constexpr std::uint64_t kStartSalt = 0x9e3779b9u;

  void allocate(const Shape& s) {
    const int side = pair_->side(), me = pair_->local_rank();
    const std::size_t mine = s.blocks(side)[static_cast<std::size_t>(me)];
    counts_ = s.blocks(1 - side);
    displs_.resize(counts_.size());
    std::exclusive_scan(counts_.begin(), counts_.end(), displs_.begin(), std::size_t{0});
    send_ = collrepro::Buffer(mine);
    recv_ = collrepro::Buffer(std::accumulate(counts_.begin(), counts_.end(), std::size_t{0}));
    if (send_.holds_data()) collrepro::fill_pattern(send_.span(), side, me, salt_);
    args_ = Args{send_.data(), mine, recv_.data(), counts_, displs_};
  }

  const InterAlgorithm& algo_;
  const InterAlgorithm* native_;
  const GroupPair* pair_;
  const GroupPair* native_pair_;
  std::uint64_t salt_;
  int world_rank_;
  int starts_;
  std::vector<std::size_t> counts_, displs_;
  collrepro::Buffer send_, recv_;
  Args args_;                                   // referenced by runner_: declared before it
  std::unique_ptr<collrepro::Runner> runner_;
};

// ------------------------------------------------------------------ session (MPI)

class InterSession final : public FamilySession {
 public:
  explicit InterSession(const RunEnvironment& env) : env_(env) {
    collrepro::check(MPI_Comm_rank(env_.world, &world_rank_), "MPI_Comm_rank");
  }

  std::unique_ptr<PreparedPoint> prepare(const Algorithm& algorithm, const PointShape& point_shape,
                                         const std::string& placement, std::uint64_t salt,
                                         collrepro::CallForm call) override {
    const auto& algo = as_inter(algorithm);
    const auto& shape = as_inter(point_shape);
    const Context& ctx = context(placement, shape.shape().p, shape.shape().q, shape.mode());
    const InterAlgorithm* native = nullptr;
    const GroupPair* native_pair = nullptr;
    if (env_.validation && env_.caps.intercomm) {  // the native reference needs an intercommunicator
      native = native_of<InterAlgorithm>(algo.info().collective);
      if (native == &algo || (native && !native->supports(shape.shape(), PairMode::Intercomm))) native = nullptr;
      if (native) {
        const Context& ref = context(placement, shape.shape().p, shape.shape().q, PairMode::Intercomm);
        native_pair = ref.pair ? &*ref.pair : nullptr;
      }
    }
    return std::make_unique<InterPoint>(algo, shape, ctx.pair ? &*ctx.pair : nullptr, native_pair, native, salt,
                                        world_rank_, call, env_);
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
  int world_rank_ = 0;
  std::map<Key, std::unique_ptr<Context>> contexts_;
};

// ------------------------------------------------------------------ adapter

GroupSpec parse_group(const YAML::Node& n, const std::string& field, GroupSpec::Kind kind) {
  const std::string s = as_string(n, field);
  const std::string form = "= " + quote(s) + " must be p/q with positive integers, e.g. \"25/7\"";
  const auto slash = s.find('/');
  if (slash == std::string::npos) throw config_error(field, form);
  GroupSpec g{kind, parse_count(s.substr(0, slash), field, form), parse_count(s.substr(slash + 1), field, form), s, field};
  if (g.a <= 0 || g.b <= 0) throw config_error(field, "= " + quote(s) + " needs two non-empty groups (p, q >= 1)");
  return g;
}

BlockRatio parse_block(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  const std::string form = "= " + quote(s) + " must be kA:kB with non-negative integers, e.g. \"4:1\" or \"1:0\"";
  const auto colon = s.find(':');
  if (colon == std::string::npos) throw config_error(field, form);
  BlockRatio b{static_cast<std::size_t>(parse_count(s.substr(0, colon), field, form)),
               static_cast<std::size_t>(parse_count(s.substr(colon + 1), field, form)), s, field};
  if (b.ka == 0 && b.kb == 0) throw config_error(field, "= \"0:0\" moves no data (use 1:0 for half-duplex A->B)");
  return b;
}

std::vector<GroupSpec> parse_groups(const SweepSource::Field& f) {
  if (!f.node.IsMap()) throw config_error(f.path, "must be a map with ratios: [...] and/or sizes: [...]");
  check_keys(f.node, f.path + ".", {"ratios", "sizes"});
  std::vector<GroupSpec> out;
  for (const auto& [key, kind] : {std::pair{"ratios", GroupSpec::Kind::Ratio}, std::pair{"sizes", GroupSpec::Kind::Sizes}})
    if (const auto list = f.node[key]) {
      const auto v = items(list, f.path + "." + key);
      for (std::size_t i = 0; i < v.size(); ++i) out.push_back(parse_group(v[i], item_field(f.path + "." + key, list, i), kind));
    }
  if (out.empty()) throw config_error(f.path, "has neither ratios nor sizes (e.g. groups: {ratios: [\"1/1\"]})");
  return out;
}

class InterFamily final : public TypedFamily<InterAlgorithm, InterShape, InterSession> {
 public:
  std::string name() const override { return std::string(collrepro::contract::name(collrepro::contract::Family::InterGroup)); }
  bool handles(Collective c) const override { return c == Collective::Allgather || c == Collective::Allgatherv; }

  std::vector<std::string> sweep_keys() const override { return {"pair_mode", "groups", "blocks", "distributions"}; }
  std::vector<std::string> sweep_keys(Collective c) const override {
    std::vector<std::string> f = {"pair_mode", "groups", "blocks"};
    if (c == Collective::Allgatherv) f.push_back("distributions");
    return f;
  }
  std::shared_ptr<const FamilySweep> parse_sweep(const SweepSource& src, Collective) const override {
    auto s = std::make_shared<InterSweep>();
    if (const auto f = src.get("pair_mode")) s->pair_mode = as_enum<PairMode>(f->node, f->path);
    s->groups = {{GroupSpec::Kind::Ratio, 1, 1, "1/1", "groups.ratios[0]"}};
    if (const auto f = src.get("groups")) s->groups = parse_groups(*f);
    s->blocks = {{1, 1, "1:1", "blocks[0]"}};
    if (const auto f = src.get("blocks")) {
      const auto v = items(f->node, f->path);
      s->blocks.clear();
      for (std::size_t i = 0; i < v.size(); ++i) s->blocks.push_back(parse_block(v[i], item_field(f->path, f->node, i)));
    }
    s->distributions = {Distribution{}};
    if (const auto f = src.get("distributions")) {
      const Names d = names(f->node, f->path);
      s->distributions.clear();
      for (std::size_t i = 0; i < d.values.size(); ++i) s->distributions.push_back(parse_distribution(d.values[i], d.at(i)));
    }
    return s;
  }
  std::vector<std::string> placements() const override { return placement_names(); }

  std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const override {
    const auto& keys = sweep.family_fields<InterSweep>();
    const std::vector<Distribution> dists =
        sweep.collective == Collective::Allgatherv ? keys.distributions : std::vector<Distribution>{Distribution{}};
    std::vector<std::shared_ptr<const PointShape>> out;
    for (const GroupSpec& g : keys.groups) {
      const auto [p, q] = resolve_groups(g, nprocs);
      for (const BlockRatio& b : keys.blocks)
        for (const Distribution& dist : dists)
          for (std::size_t size : sweep.sizes) {
            const auto [sa, sb] = nominal_sizes(size, b.ka, b.kb);
            Shape shape = sweep.collective == Collective::Allgather
                              ? Shape::uniform(p, q, sa, sb)
                              : Shape{p, q, distribute(dist, sa, p), distribute(dist, sb, q)};
            out.push_back(std::make_shared<InterShape>(std::move(shape), keys.pair_mode, dist, size));
          }
    }
    return out;
  }

  collrepro::Support supports(const Algorithm& a, const PointShape& s, const collrepro::Capabilities& caps) const override {
    if (as_inter(s).mode() == PairMode::Intercomm && !caps.intercomm)
      return collrepro::Support::no("this MPI library has no intercommunicators (" + caps.reason + "): use pair_mode: intracomm");
    return as_inter(a).supports(as_inter(s).shape(), as_inter(s).mode());
  }
};

}  // namespace

COLLBENCH_REGISTER_FAMILY(InterFamily)

}  // namespace collbench

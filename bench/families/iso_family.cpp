// The isomorphic family adapter (collrepro::iso::IsoAlgorithm, seed 004): neighbor-alltoall,
// neighbor-allgather and neighbor-alltoallw on a periodic torus (an MPI Cartesian
// communicator over all processes).
//
// Sweep keys: neighborhoods (collrepro::iso::Neighborhood syntax, e.g. "moore:d=3,r=1"),
// dims ("auto" = MPI_Dims_create over the process count, or "4x2x1", product = processes),
// distributions (neighbor-alltoallw only: equal | distance, the latter m_i = mhat^(d - ||C^i||),
// seed 004 Fig. 3). Placements: block only (the Cartesian communicator may reorder).
// Shape columns: neighborhood (canonical), dims (as resolved), neighbors (s), block_rule
// (uniform | distance), block_min and block_max in bytes; msg_bytes is the swept size.
// Validation: receive block i at R must be send block i (all-to-all) or the send block
// (allgather) of R (-) C^i, the send buffer unchanged, and the bytes equal to the family's
// native algorithm (Kind::Native, e.g. MPI_Neighbor_*) when it supports the shape. A
// nonblocking or persistent call (IsoAlgorithm::prepare_call; the persistent init timed by the
// family base) is validated over several starts of the one prepared runner, the send buffer
// rewritten before each, as in the inter-group family.
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "collrepro/buffers.hpp"
#include "collrepro/isomorphic.hpp"
#include "base/errors.hpp"
#include "config/config_yaml.hpp"
#include "families/family.hpp"
#include "config/units.hpp"
#include "families/validate.hpp"

namespace collbench {

namespace {

using collrepro::Algorithm;
using collrepro::Collective;
namespace iso = collrepro::iso;

std::string dims_text(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

// Offsets act modulo the torus: c_j and c_j mod p_j (sign kept) name the same process, so the
// algorithms plan with the remainders and their cost no longer grows with |c_j| (a generated
// kind, or offsets already inside the torus, are left as they are). Not for the seed's
// distance rule, whose block sizes m_i = mhat^(d-|C^i|) depend on the offsets as written
// (it allows |c_j| <= 1 only, so there is nothing to reduce).
iso::Neighborhood modulo_torus(const iso::Neighborhood& n, const std::vector<int>& dims) {
  std::vector<iso::Offset> reduced = n.offsets();
  bool changed = false;
  for (iso::Offset& c : reduced)
    for (std::size_t j = 0; j < c.size(); ++j)
      if (const int r = c[j] % dims[j]; r != c[j]) c[j] = r, changed = true;
  return changed ? iso::Neighborhood::list(std::move(reduced)) : n;
}

// The plan budget: the algorithms' schedules grow with the block-hops V = sum_i ||C^i||_1 of
// the (reduced) offsets, and the plan computes them once per shape and size.
constexpr std::size_t kMaxBlockHops = std::size_t{1} << 20;  // per neighbourhood
constexpr std::size_t kMaxPlanHops = std::size_t{1} << 27;   // summed over a sweep's shapes

std::size_t block_hops(const iso::Neighborhood& n) {
  std::size_t v = 0;
  for (const iso::Offset& c : n.offsets()) v += static_cast<std::size_t>(iso::norm1(c));
  return v;
}

class IsoShape final : public PointShape {
 public:
  // configured: the neighbourhood as the config gives it (the CSV column), also when the
  // shape's offsets were reduced modulo the torus.
  IsoShape(iso::Shape shape, Collective collective, std::string configured, std::size_t msg_bytes)
      : shape_(std::move(shape)), collective_(collective), configured_(std::move(configured)), msg_bytes_(msg_bytes) {}
  std::size_t msg_bytes() const override { return msg_bytes_; }
  std::size_t buffer_bytes() const override {
    const auto args = iso::Args::contiguous(collective_, shape_);
    return args.send_extent() + args.recv_extent();
  }
  ShapeValues columns() const override {
    const auto blocks = shape_.block_bytes();
    const auto [lo, hi] = blocks.empty() ? std::pair(std::size_t{0}, std::size_t{0})
                                         : std::pair(*std::min_element(blocks.begin(), blocks.end()),
                                                     *std::max_element(blocks.begin(), blocks.end()));
    return {{"neighborhood", configured_},
            {"dims", dims_text(shape_.dims)},
            {"neighbors", std::to_string(shape_.neighborhood.size())},
            {"block_rule", std::string(collrepro::contract::name(shape_.rule))},
            {"block_min", std::to_string(lo)},
            {"block_max", std::to_string(hi)}};
  }
  std::string describe() const override {
    return configured_ + " (s=" + std::to_string(shape_.neighborhood.size()) +
           ") dims=" + dims_text(shape_.dims) + (shape_.rule == iso::BlockRule::Uniform ? "" : " distance rule");
  }
  const iso::Shape& shape() const { return shape_; }

 private:
  iso::Shape shape_;
  Collective collective_;
  std::string configured_;
  std::size_t msg_bytes_;
};

struct IsoSweep final : FamilySweep {
  std::vector<iso::Neighborhood> neighborhoods;
  Names neighborhood_names;
  Names dims;
  std::vector<iso::BlockRule> rules;
  Names rule_names;
};

const iso::IsoAlgorithm& as_iso(const Algorithm& a) { return dynamic_cast<const iso::IsoAlgorithm&>(a); }
const IsoShape& as_iso(const PointShape& s) { return dynamic_cast<const IsoShape&>(s); }

std::string item(const Names& n, std::size_t i) { return n.at(i); }

iso::Neighborhood parse_neighborhood(const Names& names, std::size_t i) {
  try {
    return iso::Neighborhood::parse(names.values[i]);
  } catch (const std::invalid_argument& e) {
    throw config_error(item(names, i), "= " + quote(names.values[i]) + ": " + e.what());
  }
}

// "4x2x1" -> {4, 2, 1}, checked (each part a positive integer that cannot overflow).
std::vector<int> parse_dims(const Names& names, std::size_t i) {
  const std::string& text = names.values[i];
  const std::string form = "= " + quote(text) + " must be auto or positive sizes like 4x2x1";
  std::vector<int> dims;
  for (std::size_t at = 0;;) {
    const auto x = text.find('x', at);
    const long v = parse_count(text.substr(at, x == std::string::npos ? std::string::npos : x - at), item(names, i), form);
    if (v < 1 || v > std::numeric_limits<int>::max()) throw config_error(item(names, i), form);
    dims.push_back(static_cast<int>(v));
    if (x == std::string::npos) return dims;
    at = x + 1;
  }
}

// "auto" -> MPI_Dims_create(nprocs, d) (needs MPI initialized); "4x2x1" -> checked.
std::vector<int> resolve_dims(const Names& names, std::size_t i, int d, int nprocs) {
  const std::string& text = names.values[i];
  std::vector<int> dims;
  if (text == "auto") {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw config_error(item(names, i), "= \"auto\" needs MPI (MPI_Dims_create); give explicit dims");
    dims.assign(static_cast<std::size_t>(d), 0);
    collrepro::check(MPI_Dims_create(nprocs, d, dims.data()), "MPI_Dims_create");
    return dims;
  }
  dims = parse_dims(names, i);
  long long product = 1;
  for (int v : dims) product = std::min(product * v, 1LL << 40);
  if (static_cast<int>(dims.size()) != d)
    throw config_error(item(names, i), "= " + quote(text) + " has " + std::to_string(dims.size()) +
                                           " dimensions, the neighborhood has " + std::to_string(d) + " (use auto)");
  if (product != nprocs)
    throw config_error(item(names, i), "= " + quote(text) + " holds " + std::to_string(product) + " processes, got " +
                                           std::to_string(nprocs) + " (use -n " + std::to_string(product) + " or dims: auto)");
  return dims;
}


// ------------------------------------------------------------------ prepared point (MPI)

class IsoPoint final : public RunnerPoint {
 public:
  IsoPoint(const iso::IsoAlgorithm& algo, const iso::IsoAlgorithm* native, const iso::Shape& shape,
           const iso::IsoComm& comm, std::uint64_t salt, int world_rank, collrepro::CallForm call, MPI_Comm world)
      : native_(native), comm_(comm), salt_(salt), world_rank_(world_rank), collective_(algo.info().collective),
        starts_(call == collrepro::CallForm::Blocking ? 1 : kStartsValidated) {
    args_ = iso::Args::contiguous(collective_, shape);
    send_ = collrepro::Buffer(args_.send_extent());
    recv_ = collrepro::Buffer(args_.recv_extent());
    fill_send(salt_);
    args_.send = send_.data();
    args_.recv = recv_.data();
    runner_ = build(world, call, [&] { return algo.prepare_call(comm_, args_, call); });
  }

  // A nonblocking or persistent call: kStartsValidated starts of the one prepared runner, the
  // send buffer rewritten before each, so that a copy cached at init fails.
  std::optional<std::string> validate() override {
    const auto kind = collective_ == Collective::NeighborAllgather ? collrepro::NeighborKind::Allgather
                                                                    : collrepro::NeighborKind::Alltoall;
    std::optional<std::string> error;
    // Every start runs on every rank (the calls are collective), even after an error.
    for (int start = 0; start < starts_; ++start) {
      const std::uint64_t salt = salt_ + static_cast<std::uint64_t>(start) * kStartSalt;
      fill_send(salt);
      ValidationRun v{"world rank " + std::to_string(world_rank_) + " (torus rank " + std::to_string(comm_.rank()) +
                          ")" + (starts_ > 1 ? ", start " + std::to_string(start + 1) : ""),
                      &send_, &recv_, {}, [&] { runner_->run(); }, {}, "",
                      collrepro::neighbor_expected(kind, args_.recv_counts, args_.recv_displs, comm_.sources(), salt)};
      v.compare_with(native_, comm_, args_);
      auto e = validate_run(v);
      if (!error) error = std::move(e);
    }
    if (starts_ > 1) fill_send(salt_);
    return error;
  }

 protected:
  collrepro::Runner* runner() const override { return runner_.get(); }

 private:
  static constexpr int kStartsValidated = 3;
  static constexpr std::uint64_t kStartSalt = 0x9e3779b9u;

  void fill_send(std::uint64_t salt) {
    if (send_.holds_data())
      collrepro::fill_blocks(send_.span(), collrepro::neighbor_send_blocks(args_.send_counts, args_.send_displs,
                                                                         comm_.rank(), salt));
  }

  const iso::IsoAlgorithm* native_;
  const iso::IsoComm& comm_;
  std::uint64_t salt_;
  int world_rank_;
  Collective collective_;
  int starts_;
  collrepro::Buffer send_, recv_;
  iso::Args args_;  // referenced by runner_: declared before it
  std::unique_ptr<collrepro::Runner> runner_;
};

class IsoSession final : public FamilySession {
 public:
  explicit IsoSession(const RunEnvironment& env) : env_(env) {
    collrepro::check(MPI_Comm_rank(env_.world, &world_rank_), "MPI_Comm_rank");
  }

  std::unique_ptr<PreparedPoint> prepare(const Algorithm& algorithm, const PointShape& point_shape, const std::string&,
                                         std::uint64_t salt,
                                         collrepro::CallForm call) override {
    const auto& algo = as_iso(algorithm);
    const auto& shape = as_iso(point_shape).shape();
    const auto key = std::pair(shape.neighborhood.to_string(), shape.dims);
    auto it = comms_.find(key);
    if (it == comms_.end())
      it = comms_.emplace(key, std::make_unique<iso::IsoComm>(iso::IsoComm::create(env_.world, shape.neighborhood, env_.caps, shape.dims))).first;
    const iso::IsoAlgorithm* native = env_.validation ? native_of<iso::IsoAlgorithm>(algo.info().collective) : nullptr;
    if (native == &algo || (native && !native->supports(shape, env_.caps))) native = nullptr;
    return std::make_unique<IsoPoint>(algo, native, shape, *it->second, salt, world_rank_, call, env_.world);
  }

  nlohmann::json placement_report() const override {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [key, comm] : comms_)
      out.push_back({{"placement", std::string(collrepro::contract::name(collrepro::contract::Placement::Block))}, {"neighborhood", key.first}, {"dims", dims_text(comm->dims())},
                     {"effective", "cartesian (reorder allowed)"}, {"note", ""}});
    return out;
  }

 private:
  RunEnvironment env_;
  int world_rank_ = 0;
  std::map<std::pair<std::string, std::vector<int>>, std::unique_ptr<iso::IsoComm>> comms_;
};

// ------------------------------------------------------------------ adapter

class IsoFamily final : public TypedFamily<iso::IsoAlgorithm, IsoShape, IsoSession> {
 public:
  std::string name() const override { return std::string(collrepro::contract::name(collrepro::contract::Family::Isomorphic)); }
  bool handles(Collective c) const override {
    return c == Collective::NeighborAlltoall || c == Collective::NeighborAllgather || c == Collective::NeighborAlltoallw;
  }
  std::vector<std::string> sweep_keys() const override { return {"neighborhoods", "dims", "distributions"}; }
  std::vector<std::string> sweep_keys(Collective c) const override {
    std::vector<std::string> f = {"neighborhoods", "dims"};
    if (c == Collective::NeighborAlltoallw) f.push_back("distributions");
    return f;
  }
  std::shared_ptr<const FamilySweep> parse_sweep(const SweepSource& src, Collective c) const override {
    auto s = std::make_shared<IsoSweep>();
    const auto n = src.get("neighborhoods");
    if (!n)
      throw config_error(src.prefix() + "neighborhoods", "is missing for collective " + std::string(collrepro::to_string(c)) +
                                                             " (e.g. neighborhoods: [\"moore:d=2,r=1\"])");
    s->neighborhood_names = names(n->node, n->path);
    for (std::size_t i = 0; i < s->neighborhood_names.values.size(); ++i)
      s->neighborhoods.push_back(parse_neighborhood(s->neighborhood_names, i));
    s->dims = Names{{"auto"}, "dims", false};
    if (const auto f = src.get("dims")) s->dims = names(f->node, f->path);
    for (std::size_t i = 0; i < s->dims.values.size(); ++i)
      if (s->dims.values[i] != "auto") parse_dims(s->dims, i);
    s->rule_names = Names{{std::string(collrepro::contract::name(iso::BlockRule::Uniform))}, "distributions", false};
    if (const auto f = src.get("distributions"); f && c == Collective::NeighborAlltoallw) s->rule_names = names(f->node, f->path);
    for (std::size_t i = 0; i < s->rule_names.values.size(); ++i) {
      const std::string& r = s->rule_names.values[i];
      const auto rule = collrepro::contract::parse<iso::BlockRule>(r);
      if (!rule)
        throw config_error(item(s->rule_names, i), "= " + quote(r) + " is not a block rule of " +
                                                      std::string(collrepro::to_string(c)) + " (use uniform or distance)");
      s->rules.push_back(*rule);
    }
    return s;
  }
  std::vector<std::string> placements() const override { return {std::string(collrepro::contract::name(collrepro::contract::Placement::Block))}; }

  std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const override {
    const auto& keys = sweep.family_fields<IsoSweep>();
    std::vector<std::shared_ptr<const PointShape>> out;
    std::size_t plan_hops = 0;
    for (std::size_t ni = 0; ni < keys.neighborhoods.size(); ++ni) {
      const iso::Neighborhood& n = keys.neighborhoods[ni];
      for (std::size_t di = 0; di < keys.dims.values.size(); ++di) {
        const auto dims = resolve_dims(keys.dims, di, n.dims(), nprocs);
        const iso::Neighborhood reduced = modulo_torus(n, dims);
        const std::size_t hops = block_hops(reduced), work = hops * keys.rules.size() * sweep.sizes.size();
        if (hops > kMaxBlockHops || (plan_hops += work) > kMaxPlanHops)
          throw config_error(item(keys.neighborhood_names, ni),
                             "= " + quote(keys.neighborhood_names.values[ni]) + " on dims " + dims_text(dims) + ": " +
                                 std::to_string(hops) + " block-hops per shape (at most " + std::to_string(kMaxBlockHops) +
                                 ") for " + std::to_string(sweep.sizes.size()) + " size(s), over the plan budget of " +
                                 std::to_string(kMaxPlanHops) + " (use a smaller neighbourhood or fewer sizes)");
        for (const iso::BlockRule rule : keys.rules)
          for (std::size_t size : sweep.sizes) {
            iso::Shape s = rule == iso::BlockRule::Distance ? iso::Shape::seed_irregular(n, size, dims)
                                                            : iso::Shape::regular(reduced, size, dims);
            if (auto why = s.invalid())
              throw config_error(item(keys.neighborhood_names, ni), "= " + quote(keys.neighborhood_names.values[ni]) +
                                                                        " with size " + format_bytes(size) + ": " + *why);
            out.push_back(std::make_shared<IsoShape>(std::move(s), sweep.collective, n.to_string(), size));
          }
      }
    }
    return out;
  }

};

}  // namespace

COLLBENCH_REGISTER_FAMILY(IsoFamily)

}  // namespace collbench

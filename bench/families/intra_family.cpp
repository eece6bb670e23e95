// The intra-communicator family adapter (collrepro::intra::IntraAlgorithm): intra-allgather,
// intra-allgatherv, intra-gather and intra-bcast over one communicator of all processes.
//
// Sweep keys: distributions (intra-allgatherv: equal | arithmetic | random[:seed], over the
// n processes), roots (intra-gather and intra-bcast: the root ranks, default 0).
// Placements: block (the communicator is a duplicate of the world).
// Shape columns: root, distribution, dist_seed, block_max, bytes_total.
// Call forms: the algorithm's (IntraAlgorithm::prepare_call; the persistent init timed by the
// family base).
// Validation: every block the collective delivers holds its source's pattern, the bytes
// around them keep the sentinel, the send buffer is unchanged, and the result equals the
// native call's byte for byte; a nonblocking or persistent call over several starts of the one
// prepared runner, with new data before each (so that a copy cached at init fails).
#include <algorithm>
#include <numeric>

#include "collrepro/buffers.hpp"
#include "collrepro/intra.hpp"
#include "collrepro/mpi.hpp"
#include "config/config_yaml.hpp"
#include "config/distribution.hpp"
#include "base/errors.hpp"
#include "families/family.hpp"
#include "config/units.hpp"
#include "families/validate.hpp"

namespace collbench {

namespace {

using collrepro::Algorithm;
using collrepro::Collective;
namespace intra = collrepro::intra;

struct IntraSweep final : FamilySweep {
  std::vector<Distribution> distributions;
  std::vector<long> roots;
  Names root_names;
};

class IntraShape final : public PointShape {
 public:
  IntraShape(intra::Shape shape, Distribution distribution, std::size_t msg_bytes, bool bcast)
      : shape_(std::move(shape)), distribution_(std::move(distribution)), msg_bytes_(msg_bytes), bcast_(bcast) {}
  std::size_t msg_bytes() const override { return msg_bytes_; }
  // Its own block, and the root's block (bcast) or every block (gather at the root, allgather).
  std::size_t buffer_bytes() const override {
    return shape_.max_block() + (bcast_ ? shape_.blocks[static_cast<std::size_t>(shape_.root)] : shape_.total());
  }
  ShapeValues columns() const override {
    const bool random = distribution_.kind == Distribution::Kind::Random;
    return {{"root", std::to_string(shape_.root)},
            {"distribution", distribution_.name()},
            {"dist_seed", random ? std::to_string(distribution_.seed) : ""},
            {"block_max", std::to_string(shape_.max_block())},
            {"bytes_total", std::to_string(shape_.total())}};
  }
  std::string describe() const override {
    std::string s = "n=" + std::to_string(shape_.n) + " root=" + std::to_string(shape_.root);
    if (distribution_.kind != Distribution::Kind::Equal) s += " " + distribution_.name();
    return s;
  }
  const intra::Shape& shape() const { return shape_; }

 private:
  intra::Shape shape_;
  Distribution distribution_;
  std::size_t msg_bytes_;
  bool bcast_;
};

const intra::IntraAlgorithm& as_intra(const Algorithm& a) { return dynamic_cast<const intra::IntraAlgorithm&>(a); }
const IntraShape& as_intra(const PointShape& s) { return dynamic_cast<const IntraShape&>(s); }

bool rooted(Collective c) { return c == Collective::IntraGather || c == Collective::IntraBcast; }

// ------------------------------------------------------------------ prepared point (MPI)

// The collective's counts and displacements, and the size of this rank's receive buffer.
struct Layout {
  std::vector<std::size_t> counts, displs;  // n entries
  std::size_t recv_bytes = 0;
};

Layout layout_of(Collective c, const intra::Shape& s, int rank) {
  Layout l;
  l.counts = s.blocks;
  l.displs.resize(l.counts.size());
  std::exclusive_scan(l.counts.begin(), l.counts.end(), l.displs.begin(), std::size_t{0});
  if (c == Collective::IntraBcast) {
    std::fill(l.displs.begin(), l.displs.end(), 0);
    l.recv_bytes = s.blocks[static_cast<std::size_t>(s.root)];
    return l;
  }
  l.recv_bytes = c == Collective::IntraGather && rank != s.root ? 0 : s.total();
  return l;
}

class IntraPoint final : public RunnerPoint {
 public:
  IntraPoint(const intra::IntraAlgorithm& algo, const intra::IntraAlgorithm* native, const intra::Shape& shape,
             MPI_Comm comm, std::uint64_t salt, collrepro::CallForm call, const RunEnvironment& env)
      : algo_(algo), native_(native), comm_(comm), salt_(salt),
        starts_(call == collrepro::CallForm::Blocking ? 1 : kStartsValidated) {
    collrepro::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    const Collective c = algo.info().collective;
    layout_ = layout_of(c, shape, rank_);
    send_ = collrepro::Buffer(shape.blocks[static_cast<std::size_t>(rank_)]);
    recv_ = collrepro::Buffer(layout_.recv_bytes);
    fill_send(salt_);
    args_ = intra::Args{send_.data(), send_.size(), recv_.data(), layout_.counts, layout_.displs, shape.root};
    reset_receive(salt_);
    runner_ = build(env.world, call, [&] { return algo.prepare_call(comm_, args_, call, env.caps); });
  }

  // starts_ starts of the one prepared runner (one for a blocking call), new data before each.
  std::optional<std::string> validate() override {
    std::optional<std::string> error;
    // Every start runs on every rank (the calls are collective), even after an error.
    for (int start = 0; start < starts_; ++start) {
      const std::uint64_t salt = salt_ + static_cast<std::uint64_t>(start) * kStartSalt;
      fill_send(salt);
      ValidationRun v{"world rank " + std::to_string(rank_) + (starts_ > 1 ? ", start " + std::to_string(start + 1) : ""),
                      &send_, &recv_, [&] { reset_receive(salt); }, [&] { runner_->run(); }, {}, "", expected(salt)};
      if (native_ != &algo_) v.compare_with(native_, comm_, args_);
      auto e = validate_run(v);
      if (!error) error = std::move(e);
    }
    fill_send(salt_);
    reset_receive(salt_);
    return error;
  }

 protected:
  collrepro::Runner* runner() const override { return runner_.get(); }

 private:
  static constexpr int kStartsValidated = 3;
  static constexpr std::uint64_t kStartSalt = 0x9e3779b9u;

  void fill_send(std::uint64_t salt) {
    if (send_.holds_data()) collrepro::fill_pattern(send_.span(), 0, rank_, salt);
  }
  // Sentinel everywhere, except the bcast root's buffer, which is the data it sends.
  void reset_receive(std::uint64_t salt) {
    recv_.fill(collrepro::kSentinel);
    if (algo_.info().collective == Collective::IntraBcast && rank_ == args_.root && recv_.holds_data())
      collrepro::fill_pattern(recv_.span(), 0, rank_, salt);
  }
  // What this rank's receive buffer holds after the call.
  std::vector<collrepro::ExpectedBlock> expected(std::uint64_t salt) const {
    const Collective c = algo_.info().collective;
    if (c == Collective::IntraBcast) return collrepro::root_expected(recv_.size(), args_.root, salt);
    if (c == Collective::IntraGather && rank_ != args_.root) return {};
    return collrepro::per_rank_expected(layout_.counts, layout_.displs, salt);
  }

  int rank_ = 0;
  Layout layout_;
  const intra::IntraAlgorithm& algo_;
  const intra::IntraAlgorithm* native_;
  MPI_Comm comm_;
  std::uint64_t salt_;
  int starts_;
  collrepro::Buffer send_, recv_;
  intra::Args args_;  // referenced by runner_: declared before it
  std::unique_ptr<collrepro::Runner> runner_;
};

class IntraSession final : public FamilySession {
 public:
  explicit IntraSession(const RunEnvironment& env) : env_(env), comm_(collrepro::Comm::dup(env.world)) {}

  std::unique_ptr<PreparedPoint> prepare(const Algorithm& algorithm, const PointShape& shape, const std::string&,
                                         std::uint64_t salt,
                                         collrepro::CallForm call) override {
    const auto& algo = as_intra(algorithm);
    const intra::IntraAlgorithm* native =
        env_.validation ? native_of<intra::IntraAlgorithm>(algo.info().collective) : nullptr;
    return std::make_unique<IntraPoint>(algo, native, as_intra(shape).shape(), comm_.get(), salt, call, env_);
  }
  nlohmann::json placement_report() const override {
    return nlohmann::json::array({{{"placement", std::string(collrepro::contract::name(collrepro::contract::Placement::Block))}, {"effective", "MPI_COMM_WORLD duplicate"}, {"note", ""}}});
  }

 private:
  RunEnvironment env_;
  collrepro::Comm comm_;
};

// ------------------------------------------------------------------ adapter

class IntraFamily final : public TypedFamily<intra::IntraAlgorithm, IntraShape, IntraSession> {
 public:
  std::string name() const override { return std::string(collrepro::contract::name(collrepro::contract::Family::Intra)); }
  bool handles(Collective c) const override {
    return c == Collective::IntraAllgather || c == Collective::IntraAllgatherv || rooted(c);
  }
  std::vector<std::string> sweep_keys() const override { return {"distributions", "roots"}; }
  std::vector<std::string> sweep_keys(Collective c) const override {
    if (c == Collective::IntraAllgatherv) return {"distributions"};
    if (rooted(c)) return {"roots"};
    return {};
  }
  std::shared_ptr<const FamilySweep> parse_sweep(const SweepSource& src, Collective) const override {
    auto s = std::make_shared<IntraSweep>();
    s->distributions = {Distribution{}};
    if (const auto f = src.get("distributions")) {
      const Names d = names(f->node, f->path);
      s->distributions.clear();
      for (std::size_t i = 0; i < d.values.size(); ++i) s->distributions.push_back(parse_distribution(d.values[i], d.at(i)));
    }
    s->root_names = Names{{"0"}, "roots", false};
    if (const auto f = src.get("roots")) s->root_names = names(f->node, f->path);
    for (std::size_t i = 0; i < s->root_names.values.size(); ++i)
      s->roots.push_back(parse_count(s->root_names.values[i], s->root_names.at(i),
                                     "= " + quote(s->root_names.values[i]) + " must be a rank (a non-negative integer)"));
    return s;
  }
  std::vector<std::string> placements() const override { return {std::string(collrepro::contract::name(collrepro::contract::Placement::Block))}; }

  std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const override {
    const auto& keys = sweep.family_fields<IntraSweep>();
    const Collective c = sweep.collective;
    const auto dists = c == Collective::IntraAllgatherv ? keys.distributions : std::vector<Distribution>{Distribution{}};
    const auto roots = rooted(c) ? keys.roots : std::vector<long>{0};
    for (std::size_t i = 0; i < roots.size(); ++i)
      if (roots[i] >= nprocs)
        throw config_error(keys.root_names.at(i), "= " + std::to_string(roots[i]) + " is not a rank of " +
                                                      std::to_string(nprocs) + " processes (use 0.." +
                                                      std::to_string(nprocs - 1) + ")");
    std::vector<std::shared_ptr<const PointShape>> out;
    for (long root : roots)
      for (const Distribution& d : dists)
        for (std::size_t size : sweep.sizes)
          out.push_back(std::make_shared<IntraShape>(
              intra::Shape{nprocs, static_cast<int>(root), distribute(d, size, nprocs)}, d, size,
              c == Collective::IntraBcast));
    return out;
  }

};

}  // namespace

COLLBENCH_REGISTER_FAMILY(IntraFamily)

}  // namespace collbench

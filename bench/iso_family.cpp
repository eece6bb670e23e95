// The isomorphic family adapter (collrepro::iso::IsoAlgorithm, seed 004): neighbor-alltoall,
// neighbor-allgather and neighbor-alltoallw on a periodic torus (an MPI Cartesian
// communicator over all processes; no groups, so p = q = 0 in the CSV).
//
// Sweep fields: neighborhoods (collrepro::iso::Neighborhood syntax, e.g. "moore:d=3,r=1"),
// dims ("auto" = MPI_Dims_create over the process count, or "4x2x1", product = processes),
// sizes (the block size m; for the distance rule the base mhat), distributions
// (neighbor-alltoallw only: equal | distance, the latter m_i = mhat^(d - ||C^i||), seed 004
// Fig. 3), placements (block only: the Cartesian communicator may reorder), algorithms.
// CSV: neighborhood = the canonical neighbourhood string, dims = "AxBxC" as resolved,
// ka / kb = the largest / smallest block in bytes, msg_bytes = the swept size.
// Validation: receive block i at R must be send block i (all-to-all) or the send block
// (allgather) of R (-) C^i, the send buffer unchanged, and the bytes equal to the family's
// native algorithm (Kind::Native, e.g. MPI_Neighbor_*) when it supports the shape.
#include <algorithm>
#include <cstring>
#include <map>

#include "collrepro/buffers.hpp"
#include "collrepro/isomorphic.hpp"
#include "errors.hpp"
#include "family.hpp"
#include "units.hpp"

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

class IsoShape final : public PointShape {
 public:
  IsoShape(iso::Shape shape, std::size_t msg_bytes) : shape_(std::move(shape)) {
    const auto blocks = shape_.block_bytes();
    cols_.neighborhood = shape_.neighborhood.to_string();
    cols_.dims = dims_text(shape_.dims);
    cols_.ka = blocks.empty() ? 0 : *std::max_element(blocks.begin(), blocks.end());
    cols_.kb = blocks.empty() ? 0 : *std::min_element(blocks.begin(), blocks.end());
    cols_.msg_bytes = msg_bytes;
  }
  const ShapeColumns& columns() const override { return cols_; }
  std::string describe() const override {
    return cols_.neighborhood + " (s=" + std::to_string(shape_.neighborhood.size()) + ") dims=" + cols_.dims +
           (shape_.rule == iso::BlockRule::Uniform ? "" : " distance rule");
  }
  const iso::Shape& shape() const { return shape_; }

 private:
  iso::Shape shape_;
  ShapeColumns cols_;
};

const iso::IsoAlgorithm& as_iso(const Algorithm& a) { return dynamic_cast<const iso::IsoAlgorithm&>(a); }
const IsoShape& as_iso(const PointShape& s) { return dynamic_cast<const IsoShape&>(s); }

std::string item(const Names& n, std::size_t i) { return n.at(i); }

iso::Neighborhood parse_neighborhood(const Names& names, std::size_t i) {
  try {
    return iso::Neighborhood::parse(names.values[i]);
  } catch (const std::invalid_argument& e) {
    throw config_error(item(names, i), "= \"" + names.values[i] + "\": " + e.what());
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
  std::size_t at = 0;
  long product = 1;
  while (at <= text.size()) {
    const auto x = text.find('x', at);
    const std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
        std::stol(part) < 1)
      throw config_error(item(names, i), "= \"" + text + "\" must be auto or positive sizes like 4x2x1");
    dims.push_back(std::stoi(part));
    product *= dims.back();
    if (x == std::string::npos) break;
    at = x + 1;
  }
  if (static_cast<int>(dims.size()) != d)
    throw config_error(item(names, i), "= \"" + text + "\" has " + std::to_string(dims.size()) +
                                           " dimensions, the neighborhood has " + std::to_string(d) + " (use auto)");
  if (product != nprocs)
    throw config_error(item(names, i), "= \"" + text + "\" holds " + std::to_string(product) + " processes, got " +
                                           std::to_string(nprocs) + " (use -n " + std::to_string(product) + " or dims: auto)");
  return dims;
}

std::uint64_t block_salt(std::uint64_t salt, std::size_t block) { return salt ^ ((block + 1) * 0x9E3779B97F4A7C15ull); }

// What this MPI offers. The SimGrid SMPI variant (COLLREPRO_SMPI) has no distributed graph
// topologies: MPI_Dist_graph_create(_adjacent) abort with "Not yet implemented".
iso::Capabilities mpi_capabilities() {
  iso::Capabilities caps;
#ifdef COLLREPRO_SMPI
  caps.dist_graph = false;
#endif
  return caps;
}

const iso::IsoAlgorithm* native_of(Collective c) {
  for (const auto* a : collrepro::Registry::global().family<iso::IsoAlgorithm>(c))
    if (a->info().kind == collrepro::Kind::Native) return a;
  return nullptr;
}

// ------------------------------------------------------------------ prepared point (MPI)

class IsoPoint final : public PreparedPoint {
 public:
  IsoPoint(const iso::IsoAlgorithm& algo, const iso::IsoAlgorithm* native, const iso::Shape& shape,
           const iso::IsoComm& comm, std::uint64_t salt, int world_rank)
      : native_(native), comm_(comm), salt_(salt), world_rank_(world_rank), collective_(algo.info().collective) {
    args_ = iso::Args::contiguous(collective_, shape);
    send_ = collrepro::Buffer(args_.send_extent());
    recv_ = collrepro::Buffer(args_.recv_extent());
    for (std::size_t b = 0; b < args_.send_counts.size(); ++b)
      collrepro::fill_pattern(send_.span().subspan(args_.send_displs[b], args_.send_counts[b]), 0, comm_.rank(),
                              block_salt(salt_, collective_ == Collective::NeighborAllgather ? 0 : b));
    args_.send = send_.data();
    args_.recv = recv_.data();
    runner_ = algo.prepare(comm_, args_);
  }

  void run() override { runner_->run(); }

  std::optional<std::string> validate() override {
    const std::string who = "world rank " + std::to_string(world_rank_) + " (torus rank " + std::to_string(comm_.rank()) + ")";
    std::vector<std::byte> send_copy(send_.data(), send_.data() + send_.size());
    recv_.fill(collrepro::kSentinel);
    runner_->run();
    std::optional<std::string> error;
    if (std::memcmp(send_copy.data(), send_.data(), send_.size()) != 0) error = who + ": the send buffer was modified";
    for (std::size_t i = 0; !error && i < args_.recv_counts.size(); ++i) {
      const auto block = recv_.span().subspan(args_.recv_displs[i], args_.recv_counts[i]);
      const int source = comm_.sources()[i];
      const auto salt = block_salt(salt_, collective_ == Collective::NeighborAllgather ? 0 : i);
      if (auto at = collrepro::first_pattern_mismatch(block, 0, source, salt))
        error = who + ": byte " + std::to_string(*at) + " of receive block " + std::to_string(i) + " (from torus rank " +
                std::to_string(source) + ", offset " + std::to_string(args_.recv_displs[i] + *at) + ") is wrong";
    }
    if (native_) {  // collective: run it even after an error
      collrepro::Buffer ref(recv_.size());
      iso::Args ref_args = args_;
      ref_args.recv = ref.data();
      native_->prepare(comm_, ref_args)->run();
      for (std::size_t i = 0; !error && i < recv_.size(); ++i)
        if (recv_.data()[i] != ref.data()[i])
          error = who + ": byte " + std::to_string(i) + " of the receive buffer differs from the native " +
                  native_->info().name + " result";
    }
    return error;
  }

 private:
  const iso::IsoAlgorithm* native_;
  const iso::IsoComm& comm_;
  std::uint64_t salt_;
  int world_rank_;
  Collective collective_;
  collrepro::Buffer send_, recv_;
  iso::Args args_;  // referenced by runner_: declared before it
  std::unique_ptr<collrepro::Runner> runner_;
};

class IsoSession final : public FamilySession {
 public:
  IsoSession(const RunEnvironment& env, bool validation) : env_(env), validation_(validation) {
    collrepro::check(MPI_Comm_rank(env_.world, &world_rank_), "MPI_Comm_rank");
  }

  std::unique_ptr<PreparedPoint> prepare(const Algorithm& algorithm, const PointShape& point_shape, const std::string&,
                                         std::uint64_t salt) override {
    const auto& algo = as_iso(algorithm);
    const auto& shape = as_iso(point_shape).shape();
    const auto key = std::pair(shape.neighborhood.to_string(), shape.dims);
    auto it = comms_.find(key);
    if (it == comms_.end())
      it = comms_.emplace(key, std::make_unique<iso::IsoComm>(iso::IsoComm::create(env_.world, shape.neighborhood, shape.dims))).first;
    const iso::IsoAlgorithm* native = validation_ ? native_of(algo.info().collective) : nullptr;
    if (native == &algo || (native && !native->supports(shape, mpi_capabilities()))) native = nullptr;
    return std::make_unique<IsoPoint>(algo, native, shape, *it->second, salt, world_rank_);
  }

  nlohmann::json placement_report() const override {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [key, comm] : comms_)
      out.push_back({{"placement", "block"}, {"neighborhood", key.first}, {"dims", dims_text(comm->dims())},
                     {"effective", "cartesian (reorder allowed)"}, {"note", ""}});
    return out;
  }

 private:
  RunEnvironment env_;
  bool validation_;
  int world_rank_ = 0;
  std::map<std::pair<std::string, std::vector<int>>, std::unique_ptr<iso::IsoComm>> comms_;
};

// ------------------------------------------------------------------ adapter

class IsoFamily final : public FamilyAdapter {
 public:
  std::string name() const override { return "isomorphic"; }
  bool handles(Collective c) const override {
    return c == Collective::NeighborAlltoall || c == Collective::NeighborAllgather || c == Collective::NeighborAlltoallw;
  }
  std::vector<std::string> sweep_fields(Collective c) const override {
    std::vector<std::string> f = {"collective", "algorithms", "neighborhoods", "dims", "sizes", "placements"};
    if (c == Collective::NeighborAlltoallw) f.push_back("distributions");
    return f;
  }
  std::vector<std::string> placements() const override { return {"block"}; }

  std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const override {
    const Collective c = collrepro::collective_from_string(sweep.collective);
    if (sweep.neighborhoods.values.empty())
      throw config_error(sweep.field_prefix + "neighborhoods", "is missing for collective " + sweep.collective +
                                                                   " (e.g. neighborhoods: [\"moore:d=2,r=1\"])");
    std::vector<std::string> rules = {"equal"};
    if (c == Collective::NeighborAlltoallw) rules = sweep.distributions.values;
    for (std::size_t i = 0; i < rules.size(); ++i)
      if (rules[i] != "equal" && rules[i] != "distance")
        throw config_error(item(sweep.distributions, i), "= \"" + rules[i] + "\" is not a block rule of " + sweep.collective +
                                                             " (use equal or distance)");
    std::vector<std::shared_ptr<const PointShape>> out;
    for (std::size_t ni = 0; ni < sweep.neighborhoods.values.size(); ++ni) {
      const iso::Neighborhood n = parse_neighborhood(sweep.neighborhoods, ni);
      for (std::size_t di = 0; di < sweep.dims.values.size(); ++di) {
        const auto dims = resolve_dims(sweep.dims, di, n.dims(), nprocs);
        for (const auto& rule : rules)
          for (std::size_t size : sweep.sizes) {
            iso::Shape s = rule == "distance" ? iso::Shape::seed_irregular(n, size, dims) : iso::Shape::regular(n, size, dims);
            if (auto why = s.invalid())
              throw config_error(item(sweep.neighborhoods, ni), "= \"" + sweep.neighborhoods.values[ni] +
                                                                    "\" with size " + format_bytes(size) + ": " + *why);
            out.push_back(std::make_shared<IsoShape>(std::move(s), size));
          }
      }
    }
    return out;
  }

  std::vector<const Algorithm*> algorithms(Collective c) const override {
    std::vector<const Algorithm*> out;
    for (const auto* a : collrepro::Registry::global().family<iso::IsoAlgorithm>(c)) out.push_back(a);
    return out;
  }
  collrepro::Support supports(const Algorithm& a, const PointShape& s) const override {
    return as_iso(a).supports(as_iso(s).shape(), mpi_capabilities());
  }
  collrepro::Cost cost(const Algorithm& a, const PointShape& s) const override { return as_iso(a).cost(as_iso(s).shape()); }
  collrepro::Cost bound(const Algorithm& a, const PointShape& s) const override {
    return as_iso(a).lower_bound(as_iso(s).shape());
  }
  std::unique_ptr<FamilySession> open(const RunEnvironment& env, bool validation) const override {
    return std::make_unique<IsoSession>(env, validation);
  }
};

}  // namespace

const FamilyAdapter* iso_family() {
  static const IsoFamily family;
  return &family;
}

}  // namespace collbench

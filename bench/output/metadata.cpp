#include "output/metadata.hpp"

#include <algorithm>
#include <cstdlib>

#include "collrepro/mpi.hpp"
#include "output/fileio.hpp"
#include "output/run_info.hpp"
#include "timing/stats.hpp"

namespace collbench {

using collrepro::check;

nlohmann::json config_json(const Config& c, const Plan& plan) {
  nlohmann::json j = c.effective;
  if (c.has_settings) {
    const auto ids = plan.points_per_sweep(c.sweeps.size());
    nlohmann::json settings = nlohmann::json::array();
    for (std::size_t i = 0; i < c.sweeps.size(); ++i)
      settings.push_back({{"name", c.sweeps[i].name}, {"points", ids[i]}, {"sweep", c.sweeps[i].overrides}});
    j["settings"] = settings;
  }
  return j;
}

nlohmann::json algorithms_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::array();
  std::vector<const collrepro::Algorithm*> seen;
  for (const Candidate& c : plan.candidates) {
    if (std::find(seen.begin(), seen.end(), c.algorithm) != seen.end()) continue;
    seen.push_back(c.algorithm);
    const auto& i = c.algorithm->info();
    out.push_back({{"name", i.name}, {"collective", collrepro::to_string(i.collective)}, {"family", c.family->name()},
                   {"topology", collrepro::to_string(i.topology)},
                   {"kind", collrepro::to_string(i.kind)}, {"source", i.source}, {"cost", i.cost}});
  }
  return out;
}

nlohmann::json slurm_json() {
  auto env = [](const char* k) { const char* v = std::getenv(k); return v ? std::string(v) : std::string(); };
  if (env("SLURM_JOB_ID").empty()) return nullptr;
  nlohmann::json j = {{"job_id", env("SLURM_ARRAY_JOB_ID").empty() ? env("SLURM_JOB_ID") : env("SLURM_ARRAY_JOB_ID")}};
  j["array_task_id"] = env("SLURM_ARRAY_TASK_ID").empty() ? nlohmann::json(nullptr) : nlohmann::json(env("SLURM_ARRAY_TASK_ID"));
  return j;
}

namespace {
// A JSON object a launcher passes in environment variable `var`, as metadata key `key` (nothing
// when the variable is unset; an `error` object when it is not a bounded JSON object).
nlohmann::json metadata_from_env(const char* var, const char* key) {
  const char* text = std::getenv(var);
  if (text == nullptr) return nlohmann::json::object();
  const std::string_view t(text);
  nlohmann::json j;
  if (t.size() > 64 * 1024 || json_depth(t) > kMaxJsonDepth) {
    j = {{"error", std::string(var) + " is over 64 KiB or nests deeper than " + std::to_string(kMaxJsonDepth) +
                       " levels (ignored)"}};
  } else {
    j = nlohmann::json::parse(t, nullptr, false);
    if (!j.is_object()) j = {{"error", std::string(var) + " is not a JSON object"}};
  }
  return {{key, j}};
}

// Where this launch stood in its round of a multi-installation run (metadata key
// `launch_order`): the JSON object {seed, round, slot, of, order} collrun --installations passes
// (python/collrepro/mpienv.py).
nlohmann::json launch_order_metadata() { return metadata_from_env("COLLREPRO_LAUNCH_ORDER", "launch_order"); }
[[maybe_unused]] const bool launch_order_hook = add_metadata_hook(&launch_order_metadata);

// The emulated cluster this launch ran on (metadata key `cluster`): its nodes, configured link
// rates and the fidelity check's measured bandwidth and latency, which `collrepro cluster run`
// passes (python/collrepro/cluster/cli.py).
nlohmann::json cluster_metadata() { return metadata_from_env("COLLREPRO_CLUSTER_METADATA", "cluster"); }
[[maybe_unused]] const bool cluster_hook = add_metadata_hook(&cluster_metadata);
}  // namespace

namespace {

// `trips` round trips of one message with `peer`, the rank that `starts` sending first: what every
// ping-pong below times. `send_what` and `recv_what` name the calls in an error.
void round_trips(void* buf, int count, MPI_Datatype type, int peer, bool starts, int trips, int tag,
                 const char* send_what, const char* recv_what) {
  for (int trip = 0; trip < trips; ++trip) {
    if (starts) {
      check(MPI_Send(buf, count, type, peer, tag, MPI_COMM_WORLD), send_what);
      check(MPI_Recv(buf, count, type, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), recv_what);
    } else {
      check(MPI_Recv(buf, count, type, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), recv_what);
      check(MPI_Send(buf, count, type, peer, tag, MPI_COMM_WORLD), send_what);
    }
  }
}

}  // namespace

nlohmann::json pingpong(const Clock& clock, int rank, int size) {
  if (size < 2) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  // Powers of 4 from 64 B to 64 KiB between 1 B and 1 MiB: where a library changes protocol
  // (MPICH 4.0.2's shared memory took 0.5 us at 1 B and 2.5 us at 1 KiB on a 16-core node), the
  // simulation's piecewise model (python/collrepro/sim/platforms/platform.py) sees the step, not a line.
  for (std::size_t bytes : {std::size_t{1}, std::size_t{64}, std::size_t{256}, std::size_t{1024}, std::size_t{4096},
                            std::size_t{16384}, std::size_t{65536}, std::size_t{1} << 20}) {
    std::vector<char> buf(bytes);
    std::vector<double> times;
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    for (int i = 0; i < 10; ++i) {
      const double t0 = clock.now();
      if (rank < 2)
        round_trips(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1 - rank, rank == 0, 1, 77, "MPI_Send", "MPI_Recv");
      if (i >= 2) times.push_back((clock.now() - t0) / 2);
    }
    if (rank == 0) out.push_back({{"bytes", bytes}, {"time_s", median(times)}});
  }
  return out;
}

namespace {

constexpr int kCallCostTag = 78;
constexpr int kCallCostWarmup = 2;
// Sizes whose ping-pong takes longer one way are not measured: their calls wait for the transfer
// (no per-message overhead to fit), and on a slow link (an emulated 100 Mbit/s cluster) 1 MiB
// would add seconds to every launch.
constexpr double kCallCostMaxOneWay = 1e-3;

// Ranks 0 and 1 meet (a zero-byte exchange): only they take part, so the other ranks of a large
// launch neither wait nor poll.
void meet(int rank) {
  const int peer = 1 - rank;
  char none = 0;
  check(MPI_Sendrecv(&none, 0, MPI_BYTE, peer, kCallCostTag + 1, &none, 0, MPI_BYTE, peer, kCallCostTag + 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv (meet)");
}

// Rank 0's `value` (a decision only it can make), passed to rank 1; both return it.
int from_rank0(int rank, int value, const char* what) {
  if (rank == 0)
    check(MPI_Send(&value, 1, MPI_INT, 1, kCallCostTag + 1, MPI_COMM_WORLD), what);
  else
    check(MPI_Recv(&value, 1, MPI_INT, 0, kCallCostTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), what);
  return value;
}

// Rank 1 posts the receive before they meet; rank 0 times `send` after it (the send's own call,
// not its completion), then completes it.
double time_send_side(const Clock& clock, int rank, std::vector<char>& buf, bool nonblocking) {
  const int n = static_cast<int>(buf.size());
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 1) check(MPI_Irecv(buf.data(), n, MPI_BYTE, 0, kCallCostTag, MPI_COMM_WORLD, &r), "MPI_Irecv");
  meet(rank);
  double t = 0;
  if (rank == 0) {
    const double t0 = clock.now();
    if (nonblocking)
      check(MPI_Isend(buf.data(), n, MPI_BYTE, 1, kCallCostTag, MPI_COMM_WORLD, &r), "MPI_Isend");
    else
      check(MPI_Send(buf.data(), n, MPI_BYTE, 1, kCallCostTag, MPI_COMM_WORLD), "MPI_Send");
    t = clock.now() - t0;
  }
  check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  return t;
}

// Rank 0 starts the send before they meet; rank 1 lets `settle` seconds pass (the message
// arrives meanwhile, or announces itself where the library moves it only once received), then
// times MPI_Recv. The time is rank 1's, sent to rank 0. The wait is bounded in readings too
// (`readings`): a simulated clock advances only a little per reading, and each costs real time.
double time_recv_side(const Clock& clock, int rank, std::vector<char>& buf, double settle, long readings) {
  const int n = static_cast<int>(buf.size());
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 0) check(MPI_Isend(buf.data(), n, MPI_BYTE, 1, kCallCostTag, MPI_COMM_WORLD, &r), "MPI_Isend");
  meet(rank);
  double t = 0;
  if (rank == 1) {
    const double until = clock.now() + settle;
    for (long k = 0; k < readings && clock.now() < until; ++k) {
    }
    const double t0 = clock.now();
    check(MPI_Recv(buf.data(), n, MPI_BYTE, 0, kCallCostTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    t = clock.now() - t0;
    check(MPI_Send(&t, 1, MPI_DOUBLE, 0, kCallCostTag, MPI_COMM_WORLD), "MPI_Send (recv time)");
  } else if (rank == 0) {
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    check(MPI_Recv(&t, 1, MPI_DOUBLE, 1, kCallCostTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv (recv time)");
  }
  return t;
}

}  // namespace

nlohmann::json callcosts(const Clock& clock, int rank, int size, bool oversubscribed, bool simulated,
                         const nlohmann::json& pings) {
  if (size < 2 || rank > 1) return nullptr;  // rank 0 writes the metadata
  // Only rank 0 assesses the launch (oversubscription) and holds the ping-pong.
  if (from_rank0(rank, oversubscribed ? 1 : 0, "callcosts or not")) return nullptr;
  // A simulation is deterministic: one round after the warm-up says it all, and its clock
  // readings (about a microsecond of real time each) wait up to 2000 of them, 20 us of the
  // simulated clock at SimGrid's default smpi/wtime: time enough for the eager sizes.
  const int rounds = kCallCostWarmup + (simulated ? 1 : 8);
  const long readings = simulated ? 2000 : 1000000;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t bytes : {std::size_t{1}, std::size_t{1024}, std::size_t{65536}, std::size_t{1} << 20}) {
    int go = 1;  // from the ping-pong at the same size
    if (rank == 0 && pings.is_array())
      for (const auto& p : pings)
        if (p.value("bytes", std::size_t{0}) == bytes && p.value("time_s", 0.0) > kCallCostMaxOneWay) go = 0;
    if (!from_rank0(rank, go, "callcosts size or not")) break;  // the sizes rise: every larger one takes longer
    std::vector<char> buf(bytes);
    std::vector<double> send, isend, recv;
    // Long enough for the message to arrive: 20 us plus 2 ns a byte (0.5 GB/s, slower than a node).
    const double settle = 20e-6 + 2e-9 * static_cast<double>(bytes);
    for (int i = 0; i < rounds; ++i) {
      const double s = time_send_side(clock, rank, buf, false);
      const double is = time_send_side(clock, rank, buf, true);
      const double r = time_recv_side(clock, rank, buf, settle, readings);
      if (i < kCallCostWarmup) continue;
      send.push_back(s);
      isend.push_back(is);
      recv.push_back(r);
    }
    if (rank == 0)
      out.push_back({{"bytes", bytes}, {"send_s", median(send)}, {"isend_s", median(isend)}, {"recv_s", median(recv)}});
  }
  return out;
}

namespace {

constexpr int kTypeCostTag = 79;
constexpr int kTypeCostBlocks = 4;

// The one-way time of a message: per sample, half of kTypeCostTrips round trips between ranks 0
// and 1, averaged (one round trip is too short for the clock); the median of `samples` after two
// warm-up samples.
constexpr int kTypeCostTrips = 20;

double one_way(const Clock& clock, int rank, void* buf, int count, MPI_Datatype type, int samples) {
  std::vector<double> times;
  const int peer = 1 - rank;
  for (int i = 0; i < samples + 2; ++i) {
    meet(rank);
    const double t0 = clock.now();
    round_trips(buf, count, type, peer, rank == 0, kTypeCostTrips, kTypeCostTag, "MPI_Send (typecosts)",
                "MPI_Recv (typecosts)");
    if (i >= 2) times.push_back((clock.now() - t0) / (2 * kTypeCostTrips));
  }
  return median(times);
}

}  // namespace

nlohmann::json typecosts(const Clock& clock, int rank, int size, bool oversubscribed, bool simulated) {
  if (size < 2 || rank > 1) return nullptr;
  if (from_rank0(rank, oversubscribed ? 1 : 0, "typecosts or not")) return nullptr;
  const int rounds = simulated ? 1 : 16;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t block : {std::size_t{1}, std::size_t{256}, std::size_t{4096}}) {
    // kTypeCostBlocks blocks of `block` bytes, each followed by a gap of one block: the same
    // bytes as the contiguous message, laid out as the torus algorithms' combined messages are.
    std::vector<char> buf(2 * kTypeCostBlocks * block);
    const int len = static_cast<int>(block);
    std::vector<int> lengths(kTypeCostBlocks, len);
    std::vector<MPI_Aint> displs;
    for (int b = 0; b < kTypeCostBlocks; ++b) displs.push_back(static_cast<MPI_Aint>(2 * b) * len);
    const std::vector<MPI_Datatype> types(kTypeCostBlocks, MPI_BYTE);
    MPI_Datatype strided = MPI_DATATYPE_NULL;
    check(MPI_Type_create_struct(kTypeCostBlocks, lengths.data(), displs.data(), types.data(), &strided),
          "MPI_Type_create_struct (typecosts)");
    const collrepro::Datatype owned = collrepro::Datatype::commit(strided);
    const double contiguous = one_way(clock, rank, buf.data(), kTypeCostBlocks * len, MPI_BYTE, rounds);
    const double structured = one_way(clock, rank, buf.data(), 1, owned.get(), rounds);
    if (rank == 0)
      out.push_back({{"blocks", kTypeCostBlocks}, {"bytes", kTypeCostBlocks * block},
                     {"contiguous_s", contiguous}, {"struct_s", structured}});
  }
  return out;
}

namespace {

constexpr int kSharedTag = 80;
constexpr int kSharedTrips = 4;  // round trips per sample: one is too short for the clock at 64 KiB
constexpr int kSharedMaxRanks = 256;     // a node's cores, and 4 MiB each
constexpr int kSharedMaxSimulated = 64;  // a simulated node (the validation's have 16 cores)
constexpr std::size_t kSharedLargest = std::size_t{1} << 22;

// The one-way time of `bytes` of `buf` between the ranks of each pair (2k, 2k+1) that `active` lets take
// part, all of them at once: per sample, a barrier, then kSharedTrips round trips; the median
// over `samples` after one warm-up. Ranks outside an active pair only meet the barriers and
// return 0.
double pair_one_way(const Clock& clock, int rank, int size, char* buf, std::size_t bytes, bool active, int samples) {
  const int peer = rank ^ 1;
  const bool in_pair = active && peer < size;
  const int n = static_cast<int>(bytes);
  std::vector<double> times;
  for (int i = 0; i < samples + 1; ++i) {
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier (concurrent_pingpong)");
    if (!in_pair) continue;
    const double t0 = clock.now();
    round_trips(buf, n, MPI_BYTE, peer, rank % 2 == 0, kSharedTrips, kSharedTag, "MPI_Send (concurrent_pingpong)",
                "MPI_Recv (concurrent_pingpong)");
    if (i >= 1) times.push_back((clock.now() - t0) / (2 * kSharedTrips));
  }
  return in_pair ? median(times) : 0.0;
}

}  // namespace

nlohmann::json concurrent_pingpong(const Clock& clock, int rank, int size, int nodes, bool oversubscribed,
                                   bool simulated) {
  // One node's ranks: a simulation holds every rank's buffers in one process, and the paper
  // sets' thousands of simulated ranks would pay gigabytes and minutes for a node's measurement.
  if (size < 4 || size > (simulated ? kSharedMaxSimulated : kSharedMaxRanks)) return nullptr;
  // Rank 0 decides for all: one node (in simulation the launch is the node) whose cores are
  // not shared.
  int go = (simulated || nodes == 1) && !oversubscribed ? 1 : 0;
  check(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast (concurrent_pingpong or not)");
  if (!go) return nullptr;
  const int samples = simulated ? 1 : 5;
  const int pairs = size / 2;
  nlohmann::json out = nlohmann::json::array();
  std::vector<char> buf(kSharedLargest, 1);  // touched: the first copy must not pay for page faults
  for (std::size_t bytes : {std::size_t{1} << 16, std::size_t{1} << 18, std::size_t{1} << 20, kSharedLargest}) {
    const double one = pair_one_way(clock, rank, size, buf.data(), bytes, rank < 2, samples);
    const double mine = pair_one_way(clock, rank, size, buf.data(), bytes, true, samples);
    // Rank 0 keeps the mean and the slowest of the pairs' one-way times (their even ranks').
    const double even = rank % 2 == 0 && (rank ^ 1) < size ? mine : 0.0;
    double sum = 0, slowest = 0;
    check(MPI_Reduce(&even, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce (concurrent_pingpong)");
    check(MPI_Reduce(&even, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce (concurrent_pingpong)");
    if (rank == 0)
      out.push_back({{"bytes", bytes}, {"pairs", pairs}, {"one_pair_s", one}, {"all_pairs_s", sum / pairs},
                     {"all_pairs_max_s", slowest}});
  }
  return out;
}

void record_check(SyncStats& s, const ResidualCheck& c, const std::string& when) {
  s.clock_offset_error_s = std::max(s.clock_offset_error_s, c.max_abs_offset_s);
  s.checks.push_back({{"when", when},
                      {"max_abs_offset_s", c.max_abs_offset_s},
                      {"max_error_s", c.max_error_s},
                      {"measured_ranks", c.measured},
                      {"offsets_s", c.offsets_s},
                      {"errors_s", c.errors_s},
                      {"measured", c.was_measured},
                      {"sync_bounds_s", c.bounds_s}});
}

nlohmann::json sync_json(const SyncStats& s, const Timing& t) {
  const bool global = uses_global_clock(s.method);
  nlohmann::json j = {
      {"method", to_string(s.method)},
      {"error_s", s.error_s()},
      {"invalid_rate", s.reps ? static_cast<double>(s.invalid) / static_cast<double>(s.reps) : 0.0},
      {"error_kind", global ? "max |clock offset to rank 0| over the residual checks" : "median MPI_Barrier exit skew"},
      {"clock_offset_error_s", s.clock_offset_error_s},
      {"barrier_skew_s", s.barrier_skew_s},
      {"clock_sync", to_string(t.clock_sync)},
      {"sync_cost", {{"seconds", s.cost.seconds}, {"messages", s.cost.messages}, {"rounds", s.cost.rounds}}},
      {"zero_residual_reason", s.zero_residual_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.zero_residual_reason)},
      {"checks", s.checks},
      {"repetitions", s.reps},
      {"invalid_repetitions", s.invalid}};
  if (global) {
    j["resync"] = to_string(t.resync);
    j["residual_bound_s"] = t.residual_bound;
    j["resyncs"] = s.resyncs;
    j["max_point_residual_s"] = s.max_point_residual_s;
    j["fit_points"] = t.sync_fit_points;
    j["exchanges"] = t.sync_exchanges;
  }
  if (s.method == SyncMethod::Window) {
    j["window_s"] = t.window ? nlohmann::json(*t.window) : nlohmann::json("auto");
    j["window_used_s"] = {s.window_min, s.window_max};
  }
  if (s.method == SyncMethod::RoundTime) j["budget_s"] = t.budget;
  return j;
}

nlohmann::json capabilities_json(const collrepro::Capabilities& c) {
  return {{"intercomm", c.intercomm}, {"dist_graph", c.dist_graph}, {"topo_test", c.topo_test},
          {"dist_graph_labelled", c.dist_graph_labelled}, {"simulated_clock", c.simulated_clock},
          {"inter_nonblocking", c.inter_nonblocking}, {"inter_persistent", c.inter_persistent},
          {"inter_typed", c.inter_typed},
          {"intra_persistent", c.intra_persistent}, {"intra_nonblocking", c.intra_nonblocking},
          {"intra_native_persistent", c.intra_native_persistent}, {"neighbor_nonblocking", c.neighbor_nonblocking},
          {"neighbor_persistent", c.neighbor_persistent},
          {"calls_reason", c.calls_reason}, {"reason", c.reason}, {"how", c.how}};
}

}  // namespace collbench

// The sweep driver in three steps: set-up (configuration, plan, result files, resume),
// timing set-up and metadata (machine, clock, clock synchronization, provenance), and the
// sweep over the points (prepare, validate, measure, write).
#include "run/driver.hpp"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <iomanip>
#include <sstream>
#include <thread>

#include "collrepro/capabilities.hpp"
#include "collrepro/mpi.hpp"
#include "output/contract.hpp"
#include "output/plan_listing.hpp"
#include "output/rows.hpp"
#include "run/memory_budget.hpp"
#include "base/errors.hpp"
#include "output/fileio.hpp"
#include "timing/measure.hpp"
#include "families/plan.hpp"
#include "output/results.hpp"
#include "output/run_info.hpp"
#include "timing/stats.hpp"
#include "timing/clock.hpp"
#include "timing/clock_sync.hpp"
#include "timing/topology.hpp"
#include "config/units.hpp"
#include "output/metadata.hpp"
#include "run/world.hpp"

namespace collbench {

namespace {

using collrepro::check;
namespace fs = std::filesystem;

// ------------------------------------------------------------------ progress

std::string format_eta(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  const long t = static_cast<long>(s + 0.5);
  std::ostringstream o;
  if (t >= 3600) o << t / 3600 << "h" << (t % 3600) / 60 << "m";
  else if (t >= 60) o << t / 60 << "m" << t % 60 << "s";
  else o << t << "s";
  return o.str();
}

// `flag`: appended when not empty (e.g. "[oversubscribed: 4 ranks per core]").
void progress(std::size_t done, std::size_t todo, const Candidate& c, int point, const Summary& s, double eta,
              const std::string& flag) {
  std::cerr << "[collbench] " << done << "/" << todo << " point " << point << " " << collrepro::to_string(c.collective)
            << "/" << c.algorithm->info().name << " " << c.placement << " " << c.shape->describe()
            << (c.call == collrepro::CallForm::Blocking ? "" : " call=" + std::string(collrepro::to_string(c.call))) << " size "
            << format_bytes(c.shape->msg_bytes()) << ": median " << format_seconds(s.median) << " ("
            << s.n_kept << "/" << s.n << " kept, " << s.n_invalid << " invalid), ETA " << format_eta(eta)
            << (flag.empty() ? "" : " ") << flag << std::endl;
}

// The oversubscription flag of the progress lines: empty unless ranks share cores for real.
std::string oversubscription_flag(const Oversubscription& o, bool simulated) {
  if (simulated || !o.oversubscribed()) return "";
  std::ostringstream f;
  f << "[oversubscribed: " << std::setprecision(3) << o.ranks_per_core << " ranks per core]";
  return f.str();
}

// ------------------------------------------------------------------ validation

// Collective: every rank's verdict; throws ValidationError (on all ranks) on a mismatch.
void validate_point(PreparedPoint& point, const Candidate& c, int id) {
  const auto error = point.validate();
  int bad = error ? 1 : 0, any = 0;
  check(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce (validation)");
  if (!any) return;
  const auto all = gather_strings(error.value_or(""));
  std::string first;
  int wrong = 0;
  for (const auto& m : all)
    if (!m.empty()) {
      if (first.empty()) first = m;
      ++wrong;
    }
  const std::string msg = "validation failed: " + std::string(collrepro::to_string(c.collective)) + "/" +
                          c.algorithm->info().name + " at point " + std::to_string(id) + " (" + c.shape->describe() +
                          " size " + std::to_string(c.shape->msg_bytes()) + " B, placement " + c.placement +
                          "): " + first + (wrong > 1 ? " [and " + std::to_string(wrong - 1) + " more rank(s)]" : "");
  throw ValidationError(bcast_string(msg));
}

// After writing to stdout (a plan, a report): a failed write is an IoError, not a silent loss.
void flush_stdout() {
  errno = 0;
  std::cout.flush();
  if (!std::cout) {
    const int err = errno ? errno : EIO;
    std::cout.clear();
    throw io_error("write", "the standard output", err, "free space or choose another place to redirect it");
  }
}

fs::path default_out(const Config& c, const MpiLibrary& mpi) {
  return fs::path("results") / c.experiment / (mpi.impl + "-" + mpi.version);
}

// ------------------------------------------------------------------ step 1: set-up

struct Setup {
  Config config;
  Plan plan;
  std::size_t begin = 0, end = 0;  // this slice's points
  MpiLibrary mpi;
  collrepro::Capabilities caps;
  fs::path out;
  std::unique_ptr<ResultFiles> files;  // rank 0
  std::set<int> skip;                  // points complete before this run
  std::string start_utc;
};

std::set<int> bcast_points(const std::set<int>& mine) {
  std::vector<int> v(mine.begin(), mine.end());
  int n = static_cast<int>(v.size());
  check(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  v.resize(static_cast<std::size_t>(n));
  check(MPI_Bcast(v.data(), n, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return {v.begin(), v.end()};
}

// Rank 0 reads the file; every rank parses the same text to the same Config.
Config read_config(const Options& o) {
  std::string text;
  on_root([&] { text = read_file(o.config_path); });
  return parse_config(bcast_string(text), o.sets, o.config_path);
}

// The configuration and plan (identical on every rank, checked before any measurement), and
// the result files with what earlier runs of this launch finished. Nullopt: nothing to do.
std::optional<Setup> set_up(const Options& o) {
  const int rank = world_rank();
  int size = 1;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  Setup s;
  s.start_utc = utc_now();
  s.caps = collrepro::probe_capabilities(MPI_COMM_WORLD);
  s.config = read_config(o);
  const int nprocs = o.nprocs.value_or(size);
  s.plan = make_plan(s.config, nprocs, s.caps);
  std::tie(s.begin, s.end) = o.slice ? slice_range(s.plan.size(), o.slice->first, o.slice->second)
                                     : std::pair<std::size_t, std::size_t>{0, s.plan.size()};
  if (o.dry_run) {
    on_root([&] {
      if (o.format == "csv") print_plan_csv(std::cout, s.plan, s.begin, s.end);
      else print_plan_text(std::cout, s.config, s.plan, nprocs, s.begin, s.end);
      flush_stdout();
    });
    return std::nullopt;
  }
  check_memory_budget(s.config, s.plan, node_memory_budget());  // before any buffer is allocated
  s.mpi = mpi_library();
  s.out = o.out.empty() ? default_out(s.config, s.mpi) : fs::path(o.out);
  const std::optional<int> slice = o.slice ? std::optional<int>(o.slice->first) : std::nullopt;
  const std::optional<int> slices = o.slice ? std::optional<int>(o.slice->second) : std::nullopt;
  on_root([&] { s.files = std::make_unique<ResultFiles>(s.out, o.launch, slice, s.config.fingerprint(), nprocs, slices,
                                                        s.config.timing.phases); });
  int finished = rank == 0 && s.files->finished_before() ? 1 : 0;
  check(MPI_Bcast(&finished, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (finished) {
    if (rank == 0 && !o.quiet)
      std::cerr << "[collbench] launch " << o.launch << " in " << s.out.string() << " is already complete: nothing to do\n";
    return std::nullopt;
  }
  s.skip = bcast_points(rank == 0 ? s.files->complete_points() : std::set<int>{});
  return s;
}

// ------------------------------------------------------------------ step 2: timing and metadata

// Where we run, the clock and its synchronization (phase durations go to the metadata).
struct TimingSetup {
  Machine machine;
  std::unique_ptr<Clock> clock;
  std::unique_ptr<ClockSync> sync;
  SyncStats stats;
  double resolution = 0;
  nlohmann::json pings, callcosts, typecosts, concurrent, setup_s = nlohmann::json::object();
};

// Fills ts in place: the clock synchronization keeps references to the machine and clock.
void set_up_timing(const Config& config, const collrepro::Capabilities& caps, TimingSetup& ts) {
  const Timing& t = config.timing;
  double mark = MPI_Wtime();
  auto phase = [&](const char* name) { ts.setup_s[name] = MPI_Wtime() - std::exchange(mark, MPI_Wtime()); };
  ts.machine = discover_machine(MPI_COMM_WORLD, to_string(config.binding));
  if (caps.simulated_clock) ts.machine.oversubscription = {};  // simulated ranks share no real core
  phase("machine");
  ts.clock = make_clock(t.clock, ts.machine.node.get(), MPI_COMM_WORLD);
  // On a simulated clock every reading is a simulation event: a short estimate suffices.
  ts.resolution = caps.simulated_clock ? measure_resolution(*ts.clock, 100) : measure_resolution(*ts.clock);
  phase("clock");
  ts.sync = std::make_unique<ClockSync>(*ts.clock, ts.machine, t.clock_sync,
                                       SyncParams{t.sync_fit_points, t.sync_exchanges, 0.5, uses_global_clock(t.sync)});
  ts.stats.method = t.sync;
  ts.sync->synchronize();
  phase("clock_sync");
  ts.stats.cost = ts.sync->cost();
  // Every rank once, node-wide clocks included: verifies that ranks sharing a clock agree.
  record_check(ts.stats, ts.sync->check(t.sync_exchanges, CheckScope::All), "start (every rank)");
  record_check(ts.stats, ts.sync->check(t.sync_exchanges), "start");
  ts.stats.zero_residual_reason = ts.sync->zero_residual_reason();
  phase("offset_check");
  if (!uses_global_clock(t.sync)) ts.stats.barrier_skew_s = measure_barrier_skew(MPI_COMM_WORLD, *ts.sync, 10);
  phase("barrier_skew");
  int rank = 0, size = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  ts.pings = pingpong(*ts.clock, rank, size);
  phase("pingpong");
  ts.callcosts =
      callcosts(*ts.clock, rank, size, ts.machine.oversubscription.oversubscribed(), caps.simulated_clock, ts.pings);
  phase("callcosts");
  ts.typecosts = typecosts(*ts.clock, rank, size, ts.machine.oversubscription.oversubscribed(), caps.simulated_clock);
  phase("typecosts");
  ts.concurrent = concurrent_pingpong(*ts.clock, rank, size, ts.machine.nodes,
                                      ts.machine.oversubscription.oversubscribed(), caps.simulated_clock);
  phase("concurrent_pingpong");
}

// Rank 0: the launch's metadata as it stands before the first point.
nlohmann::json initial_metadata(const Options& o, Setup& s, TimingSetup& ts) {
  const Config& config = s.config;
  const auto& prev = s.files->previous_meta();
  const auto counts = s.files->recovered_counts();
  ts.stats.reps = counts.first;
  ts.stats.invalid = counts.second;
  nlohmann::json runs = prev.is_object() && prev.contains("runs") ? prev["runs"] : nlohmann::json::array();
  runs.push_back({{"start_utc", s.start_utc}, {"command", o.command_line}, {"resumed_points", s.skip.size()}});
  const nlohmann::json build = build_provenance();
  const Machine& m = ts.machine;
  nlohmann::json meta = {
      {"contract_version", contract_version()},
      {"experiment", config.experiment},
      {"description", config.description},
      {"launch", o.launch},
      {"slice", o.slice ? nlohmann::json(o.slice->first) : nlohmann::json(nullptr)},
      {"slices", o.slice ? nlohmann::json(o.slice->second) : nlohmann::json(nullptr)},
      {"config", config_json(config, s.plan)},
      {"config_fingerprint", config.fingerprint()},
      {"command", o.command_line},
      {"build", build},
      {"git_revision", build["git_revision"].get<std::string>() + (build["git_dirty"].get<bool>() ? "-dirty" : "")},
      {"compiler", build["compiler"]},
      {"mpi_library", s.mpi.full},
      {"mpi_impl", s.mpi.impl},
      {"mpi_version", s.mpi.version},
      {"capabilities", capabilities_json(s.caps)},
      {"simulated", false},
      {"platform", nullptr},
      {"machine", m.host + "; " + m.cpu_model},
      {"nodes", m.nodes},
      {"nprocs", m.world_size},
      {"ppn", m.ppn},
      {"bindings", m.bindings},
      {"binding", {{"requested", to_string(config.binding)}, {"notes", m.notes}}},
      {"hwloc", m.hwloc},
      {"oversubscription", s.caps.simulated_clock
                               ? nlohmann::json{{"oversubscribed", false}, {"method", "simulated: no real cores"}}
                               : m.oversubscription.to_json()},
      {"clock", {{"name", ts.clock->name()}, {"resolution_s", ts.resolution}, {"details", ts.clock->details()}}},
      {"pingpong", ts.pings},
      {"callcosts", ts.callcosts},
      {"typecosts", ts.typecosts},
      {"concurrent_pingpong", ts.concurrent},
      {"setup_s", ts.setup_s},
      {"algorithms", algorithms_json(s.plan)},
      {"points", {{"total", s.plan.size()}, {"slice_begin", s.begin}, {"slice_end", s.end}, {"resumed", s.skip.size()}}},
      {"start_utc", prev.is_object() && prev.contains("start_utc") ? prev["start_utc"] : nlohmann::json(s.start_utc)},
      {"end_utc", nullptr},
      {"runs", runs},
      {"complete", false}};
  if (auto slurm = slurm_json(); !slurm.is_null()) meta["slurm"] = slurm;
  // Until finalize() records this run's files, the earlier run's integrity record still describes
  // the final files: a resume after a failure before then verifies them against it.
  if (prev.is_object() && prev.contains("integrity")) meta["integrity"] = prev["integrity"];
  const nlohmann::json hooked = hooked_metadata();
  for (const auto& [key, value] : hooked.items()) meta[key] = value;
  meta["sync"] = sync_json(ts.stats, config.timing);
  return meta;
}

// ------------------------------------------------------------------ step 3: the sweep

class Sweeper {
 public:
  Sweeper(const Options& o, Setup& s, TimingSetup& ts, InterruptWatch& watch, nlohmann::json meta)
      : o_(o), s_(s), ts_(ts), meta_(std::move(meta)), rank_(world_rank()),
        measurer_(MPI_COMM_WORLD, s.config.timing, *ts.clock, ts.sync.get(), watch) {
    int size = 1;
    check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
    id_ = Identity{s.config.experiment, o.launch, s.mpi, ts.machine.nodes, size, ts.machine.ppn,
                   s.config.timing.sync, s.config.timing.clock, {}};
    for (const Sweep& sweep : s.config.sweeps) id_.arrivals.push_back(sweep.arrival);
    env_ = RunEnvironment{MPI_COMM_WORLD, ts.machine.localities, s.caps, s.config.validation};
    for (std::size_t i = s.begin; i < s.end; ++i) todo_ += s.skip.count(static_cast<int>(i)) ? 0 : 1;
  }

  int run() {
    // The metadata first: data files without it would make the next run refuse the directory.
    on_root([&] {
      s_.files->write_meta(meta_);
      s_.files->start();
    });
    t_start_ = std::chrono::steady_clock::now();
    for (std::size_t i = s_.begin; i < s_.end && !interrupted_; ++i)
      if (!s_.skip.count(static_cast<int>(i))) measure_point(static_cast<int>(i));
    if (uses_global_clock(s_.config.timing.sync) && !interrupted_)
      record_check(ts_.stats, ts_.sync->check(s_.config.timing.sync_exchanges), "end");
    close(!interrupted_ && done_ == todo_, "");
    if (rank_ == 0 && !o_.quiet)
      std::cerr << "[collbench] launch " << o_.launch << ": " << done_ << " point(s) measured, " << s_.skip.size()
                << " already complete" << (interrupted_ ? ", interrupted" : "") << "; results in " << s_.out.string()
                << std::endl;
    return interrupted_ ? exit_code_for_signal(interrupted_) : kExitOk;
  }

 private:
  void measure_point(int point) {
    if ((interrupted_ = measurer_.agree_interrupt())) return;
    const Candidate& c = s_.plan.point(static_cast<std::size_t>(point));
    auto& session = sessions_[c.family];
    if (!session) session = c.family->open(env_);
    const std::string utc = utc_now();
    auto prepared =
        session->prepare(*c.algorithm, *c.shape, c.placement, 0x5eed0000u + static_cast<std::uint64_t>(point), c.call);
    if (validated(c)) {
      try {
        validate_point(*prepared, c, point);
      } catch (const ValidationError& e) {
        try {
          close(false, e.what());
        } catch (const SharedError& io) {  // the finding stays the message; the failed write joins it
          throw ValidationError(std::string(e.what()) + " (and " + io.what() + ")");
        }
        throw;
      }
    }
    Measurement m = measurer_.measure(*prepared, s_.config.sweeps[c.sweep].arrival);
    if (c.call == collrepro::CallForm::Nonblocking && s_.config.timing.overlap && !m.interrupted)
      measurer_.overlap(*prepared, m);
    if ((interrupted_ = m.interrupted)) return;
    ++done_;
    // Collective, so that a failed write (a full disk) stops every rank at this point with one message.
    on_root([&] { record(c, point, utc, m, prepared->init_s()); });
  }

  bool validated(const Candidate& c) const {
    const auto& v = s_.config;
    return v.validation && (!v.validation_max_bytes || c.shape->msg_bytes() <= *v.validation_max_bytes);
  }

  // Rank 0: the point's rows, the running sync statistics, the progress line.
  void record(const Candidate& c, int point, const std::string& utc, const Measurement& m, double init_s) {
    const Summary sum = summarize(m.times, m.valid, s_.config.timing.tukey_k);
    SyncStats& st = ts_.stats;
    st.reps += sum.n;
    st.invalid += sum.n_invalid;
    if (m.resynced > 0) ++st.resyncs;
    if (m.residual_s >= 0) st.max_point_residual_s = std::max(st.max_point_residual_s, m.residual_s);
    if (s_.config.timing.sync == SyncMethod::Window) {
      st.window_min = st.window_min == 0 ? m.window_s : std::min(st.window_min, m.window_s);
      st.window_max = std::max(st.window_max, m.window_s);
    }
    s_.files->append(raw_lines(id_, c, point, utc, m), summary_line(id_, c, point, sum, m, init_s), phases_lines(id_, c, point, m));
    if (o_.quiet) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
    progress(done_, todo_, c, point, sum, elapsed / static_cast<double>(done_) * static_cast<double>(todo_ - done_),
             oversubscription_flag(ts_.machine.oversubscription, s_.caps.simulated_clock));
  }

  // The final metadata and the renames (also after an interrupt or a validation failure).
  void close(bool complete, const std::string& error) {
    if (rank_ == 0) {
      meta_["end_utc"] = utc_now();
      meta_["runs"].back()["end_utc"] = meta_["end_utc"];
      meta_["runs"].back()["measured_points"] = done_;
      meta_["complete"] = complete;
      meta_["sync"] = sync_json(ts_.stats, s_.config.timing);
      nlohmann::json placements = nlohmann::json::array();
      for (const auto& [family, session] : sessions_)
        for (const auto& p : session->placement_report()) placements.push_back(p);
      meta_["placements"] = placements;
      if (interrupted_) meta_["interrupted_by"] = interrupted_ == SIGTERM ? "SIGTERM" : "SIGINT";
      if (!error.empty()) meta_["error"] = error;
    }
    on_root([&] {
      s_.files->write_meta(meta_);
      s_.files->finalize();
    });
  }

  const Options& o_;
  Setup& s_;
  TimingSetup& ts_;
  nlohmann::json meta_;
  int rank_;
  Measurer measurer_;
  Identity id_;
  RunEnvironment env_;
  std::map<const FamilyAdapter*, std::unique_ptr<FamilySession>> sessions_;
  std::size_t todo_ = 0, done_ = 0;
  int interrupted_ = 0;
  std::chrono::steady_clock::time_point t_start_;
};

}  // namespace

std::string read_file(const std::string& path) {
  std::string text;
  ReadFailure why;
  if (read_bounded(path, kMaxConfigBytes, text, why)) return text;
  if (why.too_large)
    throw ConfigError("config error: " + path + " is " + format_file_size(why.size) + ", over the " +
                      format_file_size(kMaxConfigBytes) + " limit of a configuration file (give the experiment's YAML file)");
  if (why.not_regular)
    throw ConfigError("config error: " + path + " is not a regular file (give the experiment's YAML file)");
  throw ConfigError("config error: cannot read " + path + ": " + why.reason() + " (check the path)");
}

// One residual check as the --clock-check report gives it.
nlohmann::json residual_json(const ResidualCheck& c) {
  return {{"max_abs_offset_s", c.max_abs_offset_s},
          {"max_error_s", c.max_error_s},
          {"measured_ranks", c.measured},
          {"max_sync_bound_s", c.bounds_s.empty() ? 0.0 : *std::max_element(c.bounds_s.begin(), c.bounds_s.end())}};
}

// --clock-check SECONDS: the configured clock synchronization, its cost, and the residual
// offsets of every rank (node-wide clocks included) right after it and SECONDS later, as one
// JSON object on stdout; no points, no result files. The barrier methods fit no drift, so the
// check synchronizes as the global-clock methods do.
int run_clock_check(const Options& o) {
  Config config = read_config(o);
  if (!uses_global_clock(config.timing.sync)) config.timing.sync = SyncMethod::Window;
  const auto caps = collrepro::probe_capabilities(MPI_COMM_WORLD);
  TimingSetup ts;
  set_up_timing(config, caps, ts);
  const int exchanges = config.timing.sync_exchanges;
  const ResidualCheck after = ts.sync->check(exchanges, CheckScope::All);
  if (o.clock_check > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.clock_check));
  const ResidualCheck later = ts.sync->check(exchanges, CheckScope::All);
  // Rank 0 prints; every rank waits for it, so that a failed write is reported once, with exit 5.
  on_root([&] {
    const double drift = ts.sync->drift_residual(later);
    auto or_null = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    const SyncCost& cost = ts.stats.cost;
    const nlohmann::json out = {
        {"clock", ts.clock->name()},
        {"clock_sync", to_string(config.timing.clock_sync)},
        {"nprocs", ts.machine.world_size},
        {"nodes", ts.machine.nodes},
        {"simulated", caps.simulated_clock},
        {"sync_cost", {{"seconds", cost.seconds}, {"messages", cost.messages}, {"rounds", cost.rounds}}},
        {"zero_residual_reason", ts.stats.zero_residual_reason.empty() ? nlohmann::json(nullptr)
                                                                       : nlohmann::json(ts.stats.zero_residual_reason)},
        {"after_sync", residual_json(after)},
        {"later", residual_json(later)},
        {"later_s", later.when_s - after.when_s},
        {"drift_residual", or_null(drift)},
        {"drift_resolution", or_null(ts.sync->drift_resolution(later))}};
    std::cout << out.dump() << "\n";
    flush_stdout();
  });
  return kExitOk;
}

int run_driver(const Options& o, InterruptWatch& watch) {
  if (o.clock_check >= 0) return run_clock_check(o);
  std::optional<Setup> setup = set_up(o);
  if (!setup) return kExitOk;
  TimingSetup timing;
  set_up_timing(setup->config, setup->caps, timing);
  if (const std::string w = timing.machine.oversubscription.warning(); !w.empty() && !o.quiet)
    std::cerr << "[collbench] warning: " << w << std::endl;
  nlohmann::json meta = world_rank() == 0 ? initial_metadata(o, *setup, timing) : nlohmann::json();
  return Sweeper(o, *setup, timing, watch, std::move(meta)).run();
}

}  // namespace collbench

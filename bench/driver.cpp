#include "driver.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "collrepro/mpi.hpp"
#include "csv.hpp"
#include "errors.hpp"
#include "measure.hpp"
#include "plan.hpp"
#include "results.hpp"
#include "run_info.hpp"
#include "stats.hpp"
#include "timing/clock.hpp"
#include "timing/clock_sync.hpp"
#include "timing/topology.hpp"
#include "units.hpp"
#ifdef COLLREPRO_SMPI
#include "sim/sim_info.hpp"
#endif

namespace collbench {

namespace {

using collrepro::check;
namespace fs = std::filesystem;

// ------------------------------------------------------------------ collective helpers

int world_rank() {
  int r = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &r), "MPI_Comm_rank");
  return r;
}

std::string bcast_string(std::string s) {
  int len = static_cast<int>(s.size());
  check(MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  s.resize(static_cast<std::size_t>(len));
  check(MPI_Bcast(s.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return s;
}

// Runs f on rank 0 only; an exception there is rethrown on every rank (as a ConfigError
// when it was one, else as a runtime error), so that all ranks leave together.
template <class F>
void on_root(F&& f) {
  std::string error;
  char kind = 0;
  if (world_rank() == 0) {
    try {
      f();
    } catch (const ConfigError& e) {
      error = e.what(), kind = 'c';
    } catch (const std::exception& e) {
      error = e.what(), kind = 'r';
    }
  }
  error = bcast_string(kind ? std::string(1, kind) + error : "");
  if (error.empty()) return;
  if (error[0] == 'c') throw ConfigError(error.substr(1));
  throw std::runtime_error(error.substr(1));
}

// Gathers one string per rank to rank 0.
std::vector<std::string> gather_strings(const std::string& mine) {
  int size = 0, rank = world_rank();
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int total = 0;
  for (int i = 0; i < size; ++i) displs[static_cast<std::size_t>(i)] = std::exchange(total, total + lens[static_cast<std::size_t>(i)]);
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank == 0)
    for (int i = 0; i < size; ++i)
      out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(i)]),
                               static_cast<std::size_t>(lens[static_cast<std::size_t>(i)])));
  return out;
}

// ------------------------------------------------------------------ run state

struct Identity {
  std::string experiment;
  int launch = 0;
  MpiLibrary mpi;
  int nodes = 1, nprocs = 1, ppn = 1;
  std::string sync, clock;
};

std::vector<std::string> identity_fields(const Identity& id, const Candidate& c, int point, const std::string* utc) {
  const ShapeColumns& s = c.shape->columns();
  std::vector<std::string> f = {id.experiment, std::to_string(id.launch), std::to_string(point)};
  if (utc) f.push_back(*utc);
  for (const std::string& x :
       {id.mpi.impl, id.mpi.version, std::to_string(id.nodes), std::to_string(id.nprocs), std::to_string(id.ppn),
        c.placement, std::string(collrepro::to_string(c.collective)), c.algorithm->info().name,
        c.algorithm->info().topology, std::to_string(s.p), std::to_string(s.q), std::to_string(s.ka),
        std::to_string(s.kb), s.neighborhood, s.dims, std::to_string(s.msg_bytes), id.sync, id.clock})
    f.push_back(x);
  return f;
}

std::vector<std::string> raw_lines(const Identity& id, const Candidate& c, int point, const std::string& utc,
                                   const Measurement& m) {
  std::vector<std::string> lines;
  const auto base = identity_fields(id, c, point, &utc);
  for (std::size_t i = 0; i < m.times.size(); ++i) {
    auto f = base;
    f.push_back(std::to_string(i));
    f.push_back(csv_number(m.times[i]));
    f.push_back(m.valid[i] ? "1" : "0");
    lines.push_back(csv_line(f));
  }
  return lines;
}

std::string summary_line(const Identity& id, const Candidate& c, int point, const Summary& s) {
  auto f = identity_fields(id, c, point, nullptr);
  for (const std::string& x :
       {std::to_string(s.n), std::to_string(s.n_invalid), std::to_string(s.n_kept), csv_number(s.k),
        csv_number(s.median), csv_number(s.q1), csv_number(s.q3), csv_number(s.min), csv_number(s.max),
        csv_number(s.mean), csv_number(c.cost.alpha_terms), csv_number(c.cost.beta_bytes),
        csv_number(c.bound.alpha_terms), csv_number(c.bound.beta_bytes)})
    f.push_back(x);
  return csv_line(f);
}

// ------------------------------------------------------------------ metadata

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
    out.push_back({{"name", i.name}, {"collective", collrepro::to_string(i.collective)}, {"topology", i.topology},
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

// Half round-trip times between ranks 0 and 1 (median of 8 after 2 warm-ups), for alpha/beta fits.
nlohmann::json pingpong(const Clock& clock, int rank, int size) {
  if (size < 2) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t bytes : {std::size_t{1}, std::size_t{1024}, std::size_t{65536}, std::size_t{1} << 20}) {
    std::vector<char> buf(bytes);
    std::vector<double> times;
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    for (int i = 0; i < 10; ++i) {
      const double t0 = clock.now();
      if (rank == 0) {
        check(MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 77, MPI_COMM_WORLD), "MPI_Send");
        check(MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      } else if (rank == 1) {
        check(MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        check(MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 77, MPI_COMM_WORLD), "MPI_Send");
      }
      if (i >= 2) times.push_back((clock.now() - t0) / 2);
    }
    if (rank == 0) out.push_back({{"bytes", bytes}, {"time_s", median(times)}});
  }
  return out;
}

struct SyncStats {
  std::string method;
  double clock_offset_error_s = 0;  // max |offset to rank 0| after synchronization (checks)
  double barrier_skew_s = -1;       // barrier methods: median exit skew
  nlohmann::json checks = nlohmann::json::array();
  double window_min = 0, window_max = 0;
  std::size_t reps = 0, invalid = 0;
  double error_s() const { return method == "window" ? clock_offset_error_s : barrier_skew_s; }
};

void record_check(SyncStats& s, const OffsetCheck& c, const std::string& when) {
  s.clock_offset_error_s = std::max(s.clock_offset_error_s, c.max_abs_offset_s);
  s.checks.push_back({{"when", when}, {"max_abs_offset_s", c.max_abs_offset_s}, {"max_round_trip_s", c.max_round_trip_s},
                      {"offsets_s", c.offsets_s}, {"round_trips_s", c.round_trips_s},
                      {"sync_bounds_s", c.sync_bounds_s}});
}

nlohmann::json sync_json(const SyncStats& s, const Timing& t) {
  nlohmann::json j = {{"method", s.method},
                      {"error_s", s.error_s()},
                      {"invalid_rate", s.reps ? static_cast<double>(s.invalid) / static_cast<double>(s.reps) : 0.0},
                      {"error_kind", s.method == "window" ? "max |clock offset to rank 0| after synchronization"
                                                          : "median MPI_Barrier exit skew"},
                      {"clock_offset_error_s", s.clock_offset_error_s},
                      {"barrier_skew_s", s.barrier_skew_s},
                      {"checks", s.checks},
                      {"repetitions", s.reps},
                      {"invalid_repetitions", s.invalid}};
  if (s.method == "window") {
    j["window_s"] = t.window ? nlohmann::json(*t.window) : nlohmann::json("auto");
    j["window_used_s"] = {s.window_min, s.window_max};
    j["resync"] = t.resync;
    j["fit_points"] = t.sync_fit_points;
    j["exchanges"] = t.sync_exchanges;
  }
  return j;
}

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

void progress(std::size_t done, std::size_t todo, const Candidate& c, int point, const Summary& s, double eta) {
  std::cerr << "[collbench] " << done << "/" << todo << " point " << point << " " << collrepro::to_string(c.collective)
            << "/" << c.algorithm->info().name << " " << c.placement << " " << c.shape->describe() << " size "
            << format_bytes(c.shape->columns().msg_bytes) << ": median " << format_seconds(s.median) << " ("
            << s.n_kept << "/" << s.n << " kept, " << s.n_invalid << " invalid), ETA " << format_eta(eta) << std::endl;
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
                          " size " + std::to_string(c.shape->columns().msg_bytes) + " B, placement " + c.placement +
                          "): " + first + (wrong > 1 ? " [and " + std::to_string(wrong - 1) + " more rank(s)]" : "");
  throw ValidationError(bcast_string(msg));
}

fs::path default_out(const Config& c, const MpiLibrary& mpi) {
  return fs::path("results") / c.experiment / (mpi.impl + "-" + mpi.version);
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("config error: cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void list_algorithms(std::ostream& out) {
  out << csv_line({"collective", "algorithm", "topology", "kind", "family", "source"});
  for (const auto* a : collrepro::Registry::global().all()) {
    const auto& i = a->info();
    std::string family = "-";
    for (const FamilyAdapter* f : family_adapters())
      if (f->handles(i.collective)) family = f->name();
    out << csv_line({collrepro::to_string(i.collective), i.name, i.topology, collrepro::to_string(i.kind), family, i.source});
  }
}

int run_driver(const Options& o, InterruptWatch& watch) {
  const int rank = world_rank();
  int size = 1;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  const std::string start_utc = utc_now();

  // 1. Configuration and plan: identical on every rank, checked before any measurement.
  std::string text;
  on_root([&] { text = read_file(o.config_path); });
  text = bcast_string(text);
  const Config config = parse_config(text, o.sets, o.config_path);
  const int nprocs = o.nprocs.value_or(size);
  const Plan plan = make_plan(config, nprocs);
  const auto [begin, end] = o.slice ? slice_range(plan.size(), o.slice->first, o.slice->second)
                                    : std::pair<std::size_t, std::size_t>{0, plan.size()};
  if (o.dry_run) {
    if (rank == 0) {
      if (o.format == "csv") print_plan_csv(std::cout, plan, begin, end);
      else print_plan_text(std::cout, config, plan, nprocs, begin, end);
    }
    return kExitOk;
  }

  // 2. Result files (rank 0), resume: a complete launch ends here.
  const MpiLibrary mpi = mpi_library();
  const fs::path out = o.out.empty() ? default_out(config, mpi) : fs::path(o.out);
  std::optional<int> slice_index;
  if (o.slice) slice_index = o.slice->first;
  std::unique_ptr<ResultFiles> files;
  std::optional<int> slices;
  if (o.slice) slices = o.slice->second;
  on_root([&] { files = std::make_unique<ResultFiles>(out, o.launch, slice_index, config.fingerprint(), nprocs, slices); });
  int finished = rank == 0 && files->finished_before() ? 1 : 0;
  check(MPI_Bcast(&finished, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (finished) {
    if (rank == 0 && !o.quiet)
      std::cerr << "[collbench] launch " << o.launch << " in " << out.string() << " is already complete: nothing to do\n";
    return kExitOk;
  }
  std::vector<int> done_points;
  if (rank == 0) done_points.assign(files->complete_points().begin(), files->complete_points().end());
  int n_done = static_cast<int>(done_points.size());
  check(MPI_Bcast(&n_done, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  done_points.resize(static_cast<std::size_t>(n_done));
  check(MPI_Bcast(done_points.data(), n_done, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  const std::set<int> skip(done_points.begin(), done_points.end());

  // 3. Where we run, the clock, the clock synchronization (phase durations go to the metadata).
  nlohmann::json setup_s = nlohmann::json::object();
  auto phase = [&setup_s, t = MPI_Wtime()](const char* name) mutable {
    const double now = MPI_Wtime();
    setup_s[name] = now - std::exchange(t, now);
  };
  Machine machine = discover_machine(MPI_COMM_WORLD, config.binding);
  phase("machine");
  const auto clock = make_clock(config.timing.clock, machine.node.get(), MPI_COMM_WORLD);
#ifdef COLLREPRO_SMPI
  // Each MPI_Wtime call is a simulation event in SMPI (it advances the simulated clock by
  // smpi/wtime): 200000 calls per rank would take minutes at 1000 ranks.
  const double resolution = measure_resolution(*clock, 100);
#else
  const double resolution = measure_resolution(*clock);
#endif
  phase("clock");
  ClockSync sync(*clock, machine,
                 {config.timing.sync_fit_points, config.timing.sync_exchanges, 0.5, config.timing.sync == "window"});
  SyncStats sync_stats;
  sync_stats.method = config.timing.sync;
  sync.synchronize();
  phase("clock_sync");
  record_check(sync_stats, sync.check(config.timing.sync_exchanges), "start");
  phase("offset_check");
  if (config.timing.sync != "window") sync_stats.barrier_skew_s = measure_barrier_skew(MPI_COMM_WORLD, sync, 10);
  phase("barrier_skew");
  const nlohmann::json pings = pingpong(*clock, rank, size);
  phase("pingpong");

  // 4. Metadata skeleton; the .tmp files.
  Identity id{config.experiment, o.launch, mpi, machine.nodes, size, machine.ppn, config.timing.sync, config.timing.clock};
  nlohmann::json meta;
  if (rank == 0) {
    const auto& prev = files->previous_meta();
    const auto counts = files->recovered_counts();
    sync_stats.reps = counts.first;
    sync_stats.invalid = counts.second;
    nlohmann::json runs = prev.is_object() && prev.contains("runs") ? prev["runs"] : nlohmann::json::array();
    runs.push_back({{"start_utc", start_utc}, {"command", o.command_line}, {"resumed_points", skip.size()}});
    meta = {{"experiment", config.experiment},
            {"description", config.description},
            {"launch", o.launch},
            {"slice", slice_index ? nlohmann::json(*slice_index) : nlohmann::json(nullptr)},
            {"slices", o.slice ? nlohmann::json(o.slice->second) : nlohmann::json(nullptr)},
            {"config", config_json(config, plan)},
            {"config_fingerprint", config.fingerprint()},
            {"command", o.command_line},
            {"git_revision", git_revision()},
            {"compiler", compiler()},
            {"mpi_library", mpi.full},
            {"mpi_impl", mpi.impl},
            {"mpi_version", mpi.version},
            {"simulated", false},
            {"platform", nullptr},
            {"machine", machine.host + "; " + machine.cpu_model},
            {"nodes", machine.nodes},
            {"nprocs", size},
            {"ppn", machine.ppn},
            {"bindings", machine.bindings},
            {"binding", {{"requested", config.binding}, {"notes", machine.notes}}},
            {"hwloc", machine.hwloc},
            {"clock", {{"name", clock->name()}, {"resolution_s", resolution}, {"details", clock->details()}}},
            {"pingpong", pings},
            {"setup_s", setup_s},
            {"algorithms", algorithms_json(plan)},
            {"points", {{"total", plan.size()}, {"slice_begin", begin}, {"slice_end", end}, {"resumed", skip.size()}}},
            {"start_utc", prev.is_object() && prev.contains("start_utc") ? prev["start_utc"] : nlohmann::json(start_utc)},
            {"end_utc", nullptr},
            {"runs", runs},
            {"complete", false}};
    if (auto s = slurm_json(); !s.is_null()) meta["slurm"] = s;
#ifdef COLLREPRO_SMPI
    const nlohmann::json sim_meta = sim::metadata();  // simulated, platform, smpi_version, network_model, ...
    for (const auto& [key, value] : sim_meta.items()) meta[key] = value;
#endif
    meta["sync"] = sync_json(sync_stats, config.timing);
  }
  on_root([&] {
    files->start();
    files->write_meta(meta);
  });

  // 5. The points.
  RunEnvironment env{MPI_COMM_WORLD, machine.localities};
  std::map<const FamilyAdapter*, std::unique_ptr<FamilySession>> sessions;
  Measurer measurer(MPI_COMM_WORLD, config.timing, *clock, &sync, watch);
  std::size_t todo = 0, done = 0;
  for (std::size_t i = begin; i < end; ++i) todo += skip.count(static_cast<int>(i)) ? 0 : 1;
  const auto t_start = std::chrono::steady_clock::now();
  int interrupted = 0;
  auto finish = [&](bool complete, const std::string& error) {
    if (rank != 0) return;
    meta["end_utc"] = utc_now();
    meta["runs"].back()["end_utc"] = meta["end_utc"];
    meta["runs"].back()["measured_points"] = done;
    meta["complete"] = complete;
    meta["sync"] = sync_json(sync_stats, config.timing);
    nlohmann::json placements = nlohmann::json::array();
    for (const auto& [family, session] : sessions)
      for (const auto& p : session->placement_report()) placements.push_back(p);
    meta["placements"] = placements;
    if (interrupted) meta["interrupted_by"] = interrupted == SIGTERM ? "SIGTERM" : "SIGINT";
    if (!error.empty()) meta["error"] = error;
  };

  for (std::size_t i = begin; i < end; ++i) {
    const int point = static_cast<int>(i);
    if (skip.count(point)) continue;
    if ((interrupted = measurer.agree_interrupt())) break;
    const Candidate& c = plan.point(i);
    auto& session = sessions[c.family];
    if (!session) session = c.family->open(env, config.validation);
    const std::string utc = utc_now();
    auto prepared = session->prepare(*c.algorithm, *c.shape, c.placement, 0x5eed0000u + static_cast<std::uint64_t>(point));
    if (config.validation &&
        (!config.validation_max_bytes || c.shape->columns().msg_bytes <= *config.validation_max_bytes)) {
      try {
        validate_point(*prepared, c, point);
      } catch (const ValidationError& e) {
        finish(false, e.what());
        on_root([&] {
          files->write_meta(meta);
          files->finalize();
        });
        throw;
      }
    }
    const Measurement m = measurer.measure(*prepared);
    if ((interrupted = m.interrupted)) break;
    ++done;
    if (rank == 0) {
      const Summary s = summarize(m.times, m.valid, config.timing.tukey_k);
      sync_stats.reps += s.n;
      sync_stats.invalid += s.n_invalid;
      if (config.timing.sync == "window") {
        sync_stats.window_min = sync_stats.window_min == 0 ? m.window_s : std::min(sync_stats.window_min, m.window_s);
        sync_stats.window_max = std::max(sync_stats.window_max, m.window_s);
      }
      files->append(raw_lines(id, c, point, utc, m), summary_line(id, c, point, s));
      if (!o.quiet) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        progress(done, todo, c, point, s, elapsed / static_cast<double>(done) * static_cast<double>(todo - done));
      }
    }
  }

  // 6. Final clock check, metadata, rename.
  if (config.timing.sync == "window" && !interrupted) record_check(sync_stats, sync.check(config.timing.sync_exchanges), "end");
  finish(!interrupted && done == todo, "");
  on_root([&] {
    files->write_meta(meta);
    files->finalize();
  });
  if (rank == 0 && !o.quiet)
    std::cerr << "[collbench] launch " << o.launch << ": " << done << " point(s) measured, " << skip.size()
              << " already complete" << (interrupted ? ", interrupted" : "") << "; results in " << out.string() << std::endl;
  return interrupted ? exit_code_for_signal(interrupted) : kExitOk;
}

}  // namespace collbench

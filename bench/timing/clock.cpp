#include "timing/clock.hpp"

#include <time.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "collrepro/contract_enums.hpp"
#include "collrepro/mpi.hpp"
#include "base/errors.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define COLLBENCH_HAVE_TSC 1
#else
#define COLLBENCH_HAVE_TSC 0
#endif

namespace collbench {

namespace {

using collrepro::check;

double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The node leader's value of x, on every rank of the node.
double leader_value(double x, MPI_Comm node) {
  check(MPI_Bcast(&x, 1, MPI_DOUBLE, 0, node), "MPI_Bcast (clock origin)");
  return x;
}

class MpiWtime final : public Clock {
 public:
  MpiWtime(MPI_Comm node, MPI_Comm world) {
    int flag = 0;
    int* value = nullptr;
    check(MPI_Comm_get_attr(world, MPI_WTIME_IS_GLOBAL, &value, &flag), "MPI_Comm_get_attr(MPI_WTIME_IS_GLOBAL)");
    global_ = flag && value && *value;
    origin_ = global_ ? leader_value(MPI_Wtime(), world) : MPI_Wtime();
    (void)node;
  }
  const char* name() const override { return collrepro::contract::name(collrepro::contract::ClockKind::MpiWtime).data(); }
  double now() const override { return MPI_Wtime() - origin_; }
  bool node_wide() const override { return global_; }
  nlohmann::json details() const override { return {{"wtick_s", MPI_Wtick()}, {"wtime_is_global", global_}}; }

 private:
  bool global_ = false;
  double origin_ = 0;
};

class Monotonic final : public Clock {
 public:
  explicit Monotonic(MPI_Comm node) : origin_(leader_value(monotonic_seconds(), node)) {}
  const char* name() const override { return collrepro::contract::name(collrepro::contract::ClockKind::Monotonic).data(); }
  double now() const override { return monotonic_seconds() - origin_; }
  bool node_wide() const override { return true; }
  nlohmann::json details() const override {
    timespec res{};
    clock_getres(CLOCK_MONOTONIC, &res);
    return {{"clock_getres_s", static_cast<double>(res.tv_sec) + 1e-9 * static_cast<double>(res.tv_nsec)}};
  }

 private:
  double origin_;
};

#if COLLBENCH_HAVE_TSC
std::uint64_t read_tsc() {
  unsigned aux = 0;
  return __rdtscp(&aux);
}

class Tsc final : public Clock {
 public:
  explicit Tsc(MPI_Comm node) {
    int rank = 0;
    check(MPI_Comm_rank(node, &rank), "MPI_Comm_rank");
    double calib[2] = {0, 0};  // ticks per second, origin in ticks
    if (rank == 0) {
      const double m0 = monotonic_seconds();
      const std::uint64_t t0 = read_tsc();
      double m1 = m0;
      while (m1 - m0 < 0.05) m1 = monotonic_seconds();
      const std::uint64_t t1 = read_tsc();
      calib[0] = static_cast<double>(t1 - t0) / (m1 - m0);
      calib[1] = static_cast<double>(t1);
    }
    check(MPI_Bcast(calib, 2, MPI_DOUBLE, 0, node), "MPI_Bcast (tsc calibration)");
    hz_ = calib[0];
    origin_ = static_cast<std::uint64_t>(calib[1]);
  }
  const char* name() const override { return collrepro::contract::name(collrepro::contract::ClockKind::Tsc).data(); }
  double now() const override {
    return static_cast<double>(static_cast<std::int64_t>(read_tsc() - origin_)) / hz_;
  }
  bool node_wide() const override { return true; }
  nlohmann::json details() const override { return {{"tsc_hz", hz_}, {"calibrated_against", "CLOCK_MONOTONIC, 50 ms"}}; }

 private:
  double hz_ = 1;
  std::uint64_t origin_ = 0;
};
#endif

}  // namespace

bool invariant_tsc() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line);
      bool constant = false, nonstop = false;
      for (std::string w; words >> w;) {
        constant |= w == "constant_tsc";
        nonstop |= w == "nonstop_tsc";
      }
      return constant && nonstop;
    }
  return false;
}

std::unique_ptr<Clock> make_clock(ClockKind kind, MPI_Comm node_comm, MPI_Comm world) {
  if (kind == ClockKind::MpiWtime) return std::make_unique<MpiWtime>(node_comm, world);
  if (kind == ClockKind::Monotonic) return std::make_unique<Monotonic>(node_comm);
  if (kind == ClockKind::Tsc) {
    int ok = COLLBENCH_HAVE_TSC && invariant_tsc() ? 1 : 0, all_ok = 0, missing = 0, bad = 1 - ok;
    check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce (tsc check)");
    check(MPI_Allreduce(&bad, &missing, 1, MPI_INT, MPI_SUM, world), "MPI_Allreduce (tsc check)");
    if (!all_ok)
      throw config_error("timing.clock", "= \"tsc\" needs an invariant TSC (x86 with constant_tsc and nonstop_tsc in "
                                         "/proc/cpuinfo), missing on " + std::to_string(missing) +
                                         " process(es) (use timing.clock=monotonic)");
#if COLLBENCH_HAVE_TSC
    return std::make_unique<Tsc>(node_comm);
#endif
  }
  throw config_error("timing.clock", "= \"" + to_string(kind) + "\" is not a clock in this build (use mpi-wtime or monotonic)");
}

double measure_resolution(const Clock& clock, int samples) {
  double best = std::numeric_limits<double>::infinity();
  double prev = clock.now();
  for (int i = 0; i < samples; ++i) {
    const double t = clock.now();
    if (t > prev && t - prev < best) best = t - prev;
    prev = t;
  }
  return best;
}

}  // namespace collbench

// libcollrepro_slowlib: a second, independent way to make a synthetic release, for calibrating
// the version verdicts (python/collrepro/versions/calibration.py) and for the CI test
// versions.openmpi.injected_slowdown_preload. It shares no code with the PMPI library's delay
// mode (interpose/delay.cpp), so that the calibration does not rest on one mechanism only.
//
// Preloaded (LD_PRELOAD) into an MPI program, it wraps MPI_Allgather and MPI_Allgatherv through
// the profiling interface: the call runs as PMPI_X and, after it returns, the library waits a
// fixed time (slept) or a share of the call's own duration on this process (spun, the clock read
// around the PMPI call) before it returns.
//
// COLLREPRO_SLOWLIB, required once the library is preloaded: `none` (a placebo: every call is
// passed on untouched), or rules separated by ';', each CALL,COMM,MINBYTES,AMOUNT:
//   CALL      MPI_Allgather or MPI_Allgatherv
//   COMM      inter, intra or any: the kind of communicator the call runs on
//   MINBYTES  a whole number of bytes: the call is slowed when its largest block (the block this
//             process sends, or the largest it receives; MPI_IN_PLACE: the receive block) is at
//             least this big
//   AMOUNT    +Nms (a fixed time, N in 1..1000) or +N% (N in 1..1000 of the call's own duration)
// e.g. COLLREPRO_SLOWLIB='MPI_Allgather,inter,131072,+100ms'. The first rule naming the call
// whose COMM and MINBYTES hold applies. The value is read when the library loads, in the launcher
// as in every rank: a bad one is one line on stderr and exit status 2 before any rank starts,
// never a silent run without the slowdown.
//
// Which collbench points a rule slows, and the same grammar on the Python side:
// python/collrepro/installations/slowlib.py. Built as tests/slowlib (CMakeLists.txt here).
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

enum class Comm { Inter, Intra, Any };

struct Rule {
  char call[16];     // MPI_Allgather or MPI_Allgatherv
  Comm comm;
  long long min_bytes;
  long long ms;      // a fixed time, or 0
  long long percent; // a share of the call's duration, or 0
};

constexpr int kMaxRules = 8;
constexpr const char* kVariable = "COLLREPRO_SLOWLIB";
constexpr const char* kWant = "want none, or CALL,COMM,MINBYTES,+Nms|+N% rules separated by ';', "
                              "e.g. MPI_Allgather,inter,131072,+100ms";
Rule rules[kMaxRules];
int n_rules = 0;

[[noreturn]] void fail(const char* rule, const char* why) {
  std::fprintf(stderr, "slowlib: %s rule '%.60s': %s (%s)\n", kVariable, rule, why, kWant);
  std::exit(2);
}

// A whole decimal number in [lo, hi], the whole of `text`; -1 when it is not one.
long long number(const char* text, long long lo, long long hi) {
  if (*text < '0' || *text > '9' || std::strlen(text) > 12) return -1;
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text, &end, 10);
  return (errno == 0 && *end == '\0' && n >= lo && n <= hi) ? n : -1;
}

Rule parse_rule(const char* whole) {
  char text[1024];
  std::snprintf(text, sizeof text, "%s", whole);
  char* field[4];
  int n = 0;
  for (char* save = nullptr, *f = strtok_r(text, ",", &save); f != nullptr; f = strtok_r(nullptr, ",", &save)) {
    if (n < 4) field[n] = f;
    ++n;
  }
  if (n != 4) fail(whole, "want four fields separated by ','");
  Rule r{};
  if (std::strcmp(field[0], "MPI_Allgather") != 0 && std::strcmp(field[0], "MPI_Allgatherv") != 0)
    fail(whole, "CALL is not MPI_Allgather or MPI_Allgatherv");
  std::snprintf(r.call, sizeof r.call, "%s", field[0]);
  if (std::strcmp(field[1], "inter") == 0) r.comm = Comm::Inter;
  else if (std::strcmp(field[1], "intra") == 0) r.comm = Comm::Intra;
  else if (std::strcmp(field[1], "any") == 0) r.comm = Comm::Any;
  else fail(whole, "COMM is not inter, intra or any");
  r.min_bytes = number(field[2], 0, 1LL << 40);
  if (r.min_bytes < 0) fail(whole, "MINBYTES is not a whole number of bytes (e.g. 131072)");
  const char* amount = field[3];
  const std::size_t len = std::strlen(amount);
  char digits[16] = {0};
  bool ok = false;
  if (amount[0] == '+' && len > 3 && len < 16 && std::strcmp(amount + len - 2, "ms") == 0) {
    std::memcpy(digits, amount + 1, len - 3);
    r.ms = number(digits, 1, 1000);
    ok = r.ms > 0;
  } else if (amount[0] == '+' && len > 2 && len < 16 && amount[len - 1] == '%') {
    std::memcpy(digits, amount + 1, len - 2);
    r.percent = number(digits, 0, 1000);   // +0%: the placebo (the call is timed, nothing is added)
    ok = r.percent >= 0;
  }
  if (!ok) fail(whole, "AMOUNT is not +Nms (N a whole number in 1..1000) or +N% (N in 0..1000; +0% is a placebo)");
  return r;
}

// Reads COLLREPRO_SLOWLIB when the library loads (every process it is preloaded into).
__attribute__((constructor)) void read_rules() {
  const char* value = std::getenv(kVariable);
  if (value == nullptr || *value == '\0') {
    std::fprintf(stderr, "slowlib: %s is not set, but the library is preloaded (%s)\n", kVariable, kWant);
    std::exit(2);
  }
  if (std::strcmp(value, "none") == 0) return;
  static char text[1024];
  if (std::strlen(value) >= sizeof text) fail(value, "the value is over 1023 characters");
  std::snprintf(text, sizeof text, "%s", value);
  const std::size_t end = std::strlen(text) - 1;
  if (std::strstr(text, ";;") || std::strstr(text, ",,") || std::strchr(";,", text[0]) || std::strchr(";,", text[end]))
    fail(value, "an empty rule or field (two separators in a row, or one at an end)");
  char* save = nullptr;
  for (char* rule = strtok_r(text, ";", &save); rule != nullptr; rule = strtok_r(nullptr, ";", &save)) {
    if (n_rules == kMaxRules) fail(rule, "more than 8 rules");
    rules[n_rules++] = parse_rule(rule);
  }
  if (n_rules == 0) fail(value, "no rule");
}

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

const Rule* find(const char* call, MPI_Comm comm, long long bytes) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  for (int i = 0; i < n_rules; ++i) {
    const Rule& r = rules[i];
    const bool kind = r.comm == Comm::Any || (r.comm == Comm::Inter) == (inter != 0);
    if (std::strcmp(r.call, call) == 0 && kind && bytes >= r.min_bytes) return &r;
  }
  return nullptr;
}

// After the call returned (`took` seconds): sleep the fixed time, or spin the share.
void slow_down(const Rule& r, double took) {
  if (r.ms > 0) {
    timespec wake{};
    clock_gettime(CLOCK_MONOTONIC, &wake);
    wake.tv_sec += r.ms / 1000;
    wake.tv_nsec += (r.ms % 1000) * 1000000L;
    if (wake.tv_nsec >= 1000000000L) wake.tv_sec += 1, wake.tv_nsec -= 1000000000L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
    }
    return;
  }
  const double until = now() + took * static_cast<double>(r.percent) / 100.0;
  while (now() < until) {
  }
}

long long block_bytes(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<long long>(count) * size;
}

// The number of processes whose blocks this process receives.
int senders(MPI_Comm comm) {
  int inter = 0, n = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) PMPI_Comm_remote_size(comm, &n);
  else PMPI_Comm_size(comm, &n);
  return n;
}

}  // namespace

extern "C" int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm) {
  long long bytes = block_bytes(rcount, rtype);
  if (sbuf != MPI_IN_PLACE && block_bytes(scount, stype) > bytes) bytes = block_bytes(scount, stype);
  const Rule* rule = n_rules ? find("MPI_Allgather", comm, bytes) : nullptr;
  const double start = now();
  const int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  if (rule != nullptr && rc == MPI_SUCCESS) slow_down(*rule, now() - start);
  return rc;
}

extern "C" int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                              const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  long long bytes = sbuf != MPI_IN_PLACE ? block_bytes(scount, stype) : 0;
  const int n = senders(comm);
  for (int i = 0; i < n; ++i)
    if (block_bytes(rcounts[i], rtype) > bytes) bytes = block_bytes(rcounts[i], rtype);
  const Rule* rule = n_rules ? find("MPI_Allgatherv", comm, bytes) : nullptr;
  const double start = now();
  const int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
  if (rule != nullptr && rc == MPI_SUCCESS) slow_down(*rule, now() - start);
  return rc;
}

// paired_forms: one inter-group algorithm's call forms, and the library's own one-message
// transfers beneath them, timed in turn within every repetition (a paired design), on a 1 + 1
// process intercommunicator.
//
// collbench times each call form as a point of its own, one block of repetitions after the
// other; between blocks the machine drifts by about as much as the forms differ at p = q = 1
// (one message). Here every repetition times each candidate once, in an order rotated from one
// repetition to the next, so the drift falls on all of them alike and the ratio of each
// candidate to the blocking call is read repetition by repetition.
//
// Candidates:
//   send-recv        MPI_Send / MPI_Recv (the library's blocking transfer)
//   isend-wait       MPI_Isend / MPI_Irecv, MPI_Wait
//   start-wait       MPI_Send_init / MPI_Recv_init once, MPI_Start + MPI_Wait per repetition
//   startall-waitall the same request through MPI_Startall / MPI_Waitall (a count of one)
//   ALG/blocking     the algorithm's Runner as collbench calls it (registry prepare_call)
//   ALG/nonblocking  its start + wait
//   ALG/persistent   its start + wait, the init done once before the repetitions
// Each repetition: MPI_Barrier, then one call of each candidate (a barrier before each), its
// time the maximum over both ranks.
//
// Output (rank 0, CSV on stdout): bytes, candidate, median time over repetitions, and against
// ALG/blocking the median of the per-repetition ratios with its distribution-free confidence
// interval (order statistics of the binomial(n, 1/2); 95 % jointly over every size and
// candidate of the run, Bonferroni: each interval at 1 - 0.05 / comparisons, the `level`
// column), and the share of repetitions in which the candidate was the faster. One run is one
// launch; run it several times to see the launches disagree.
//   mpirun -n 2 paired_forms ALGORITHM REPS BYTES [BYTES ...]
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collrepro/group_pair.hpp"
#include "collrepro/intergroup.hpp"

namespace {

struct Candidate {
  std::string name;
  std::function<void()> call;
  std::vector<double> times = {};
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The indices (0-based, of the sorted values) bounding an interval of level at least 1 - alpha
// for the median of n values: with j the largest count for which P(Binomial(n, 1/2) < j) <=
// alpha / 2, the j-th smallest and the j-th largest value (all of them where no j > 0 fits).
std::pair<std::size_t, std::size_t> median_interval(std::size_t n, double alpha) {
  const double N = static_cast<double>(n);
  auto pmf = [&](double j) {  // P(X = j), in logarithms (0.5^n underflows from n = 1075)
    return std::exp(std::lgamma(N + 1) - std::lgamma(j + 1) - std::lgamma(N - j + 1) - N * std::log(2.0));
  };
  double cdf = 0;
  std::size_t j = 0;
  while (j < n / 2 && cdf + pmf(static_cast<double>(j)) <= alpha / 2) cdf += pmf(static_cast<double>(j++));
  return j == 0 ? std::pair<std::size_t, std::size_t>{0, n - 1} : std::pair{j - 1, n - j};
}

// Times every candidate once per repetition in rotated order; times are the max over ranks.
void measure(std::vector<Candidate>& cands, int reps) {
  const std::size_t c = cands.size();
  for (auto& k : cands)
    for (int i = 0; i < 5; ++i) k.call();  // warm-up
  std::vector<double> mine(c), most(c);
  for (int r = 0; r < reps; ++r) {
    for (std::size_t j = 0; j < c; ++j) {
      const std::size_t at = (j + static_cast<std::size_t>(r)) % c;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      cands[at].call();
      mine[at] = MPI_Wtime() - t0;
    }
    MPI_Reduce(mine.data(), most.data(), static_cast<int>(c), MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (std::size_t j = 0; j < c; ++j) cands[j].times.push_back(most[j]);
  }
}

void report(std::size_t bytes, const std::vector<Candidate>& cands, const Candidate& base, double alpha) {
  const auto [lo, hi] = median_interval(base.times.size(), alpha);
  for (const auto& k : cands) {
    std::vector<double> ratio;
    std::size_t faster = 0;
    for (std::size_t i = 0; i < k.times.size(); ++i) {
      ratio.push_back(k.times[i] / base.times[i]);
      faster += k.times[i] < base.times[i];
    }
    const double m = median(ratio);
    std::sort(ratio.begin(), ratio.end());
    std::printf("%zu,%s,%.9f,%.4f,%.4f,%.4f,%.5f,%.3f\n", bytes, k.name.c_str(), median(k.times), m, ratio[lo],
                ratio[hi], 1 - alpha, static_cast<double>(faster) / static_cast<double>(ratio.size()));
  }
}

int usage(int rank, const std::string& why) {
  if (rank == 0) std::fprintf(stderr, "paired_forms: %s\nusage: mpirun -n 2 paired_forms ALGORITHM REPS BYTES [BYTES ...]\n", why.c_str());
  MPI_Finalize();
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) return usage(rank, "needs exactly 2 processes");
  if (argc < 4) return usage(rank, "missing arguments");
  const auto* alg = dynamic_cast<const collrepro::inter::InterAlgorithm*>(
      collrepro::Registry::global().find(collrepro::Collective::Allgather, argv[1]));
  if (!alg) return usage(rank, std::string("no inter-group allgather algorithm '") + argv[1] + "'");
  const int reps = std::atoi(argv[2]);
  if (reps < 20 || reps > 100000) return usage(rank, "REPS: give 20 .. 100000");
  std::vector<std::size_t> sizes;
  for (int i = 3; i < argc; ++i) {
    const unsigned long long b = std::strtoull(argv[i], nullptr, 10);
    if (b == 0 || b > (1ull << 30)) return usage(rank, std::string("BYTES '") + argv[i] + "': give 1 .. 1073741824");
    sizes.push_back(b);
  }

  const collrepro::Capabilities caps = collrepro::probe_capabilities(MPI_COMM_WORLD);
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - rank, 5, &inter);
  const auto pair = collrepro::GroupPair::from_intercomm(inter);
  const bool sender = rank == 0;  // half-duplex A -> B: rank 0 is a_0, rank 1 is b_0
  if (rank == 0) std::printf("bytes,candidate,median_s,ratio_to_blocking,ratio_lo,ratio_hi,level,share_faster\n");
  for (const std::size_t bytes : sizes) {
    const int n = static_cast<int>(bytes);
    std::vector<std::byte> send(bytes, std::byte{1}), recv(bytes);
    const auto args = collrepro::inter::Args::allgather(send.data(), sender ? bytes : 0, recv.data(), 1,
                                                        sender ? 0 : bytes);
    std::vector<std::unique_ptr<collrepro::Runner>> runners;
    std::vector<Candidate> cands;
    for (auto form : {collrepro::CallForm::Blocking, collrepro::CallForm::Nonblocking, collrepro::CallForm::Persistent}) {
      if (!alg->supports_call(form, caps).ok) continue;
      collrepro::Runner* r = nullptr;
      try {
        r = runners.emplace_back(alg->prepare_call(pair, args, form, caps)).get();
      } catch (const std::exception& e) {  // e.g. a full-duplex algorithm: this is half-duplex, A -> B
        std::fprintf(stderr, "paired_forms: %s cannot run a half-duplex 1 + 1 Allgather of %zu bytes: %s\n", argv[1],
                     bytes, e.what());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      cands.push_back({std::string(argv[1]) + "/" + collrepro::to_string(form), [r] {
                         collrepro::start_call(*r);
                         collrepro::wait_call(*r);
                       }});
    }
    MPI_Request persistent = MPI_REQUEST_NULL;
    if (sender)
      MPI_Send_init(send.data(), n, MPI_BYTE, 0, 9, inter, &persistent);
    else
      MPI_Recv_init(recv.data(), n, MPI_BYTE, 0, 9, inter, &persistent);
    cands.push_back({"send-recv", [&] {
                       if (sender)
                         MPI_Send(send.data(), n, MPI_BYTE, 0, 9, inter);
                       else
                         MPI_Recv(recv.data(), n, MPI_BYTE, 0, 9, inter, MPI_STATUS_IGNORE);
                     }});
    cands.push_back({"isend-wait", [&] {
                       MPI_Request q;
                       if (sender)
                         MPI_Isend(send.data(), n, MPI_BYTE, 0, 9, inter, &q);
                       else
                         MPI_Irecv(recv.data(), n, MPI_BYTE, 0, 9, inter, &q);
                       MPI_Wait(&q, MPI_STATUS_IGNORE);
                     }});
    cands.push_back({"start-wait", [&] {
                       MPI_Start(&persistent);
                       MPI_Wait(&persistent, MPI_STATUS_IGNORE);
                     }});
    cands.push_back({"startall-waitall", [&] {
                       MPI_Startall(1, &persistent);
                       MPI_Waitall(1, &persistent, MPI_STATUSES_IGNORE);
                     }});
    measure(cands, reps);
    const double comparisons = static_cast<double>(sizes.size() * (cands.size() - 1));
    if (rank == 0) report(bytes, cands, cands.front(), 0.05 / comparisons);
    MPI_Request_free(&persistent);
    runners.clear();
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}

// The ping-pong protocol behind clock synchronization and its residual checks.
//
// A client sends 1 (a ping) or 0 (done) to its reference; the reference answers every ping
// with its clock reading. Of a client's ping-pongs the one with the shortest round trip gives
// a fit point: x = the client's mid-point, y = reference - x; when the network is symmetric
// the true y is within half the round trip of the measured one.
#pragma once

#include <mpi.h>

#include <limits>

#include "collrepro/mpi.hpp"
#include "timing/clock_model.hpp"

namespace collbench {

// Messages this rank sent (pings, pongs, dones, models): the cost of a synchronization.
struct MessageCount {
  long sent = 0;
};

inline constexpr int kPingTag = 9171;
inline constexpr int kPing = 1, kDone = 0;
// Below this round trip a ping-pong is as good as the node gets; the adaptive client stops
// early once it has one.
inline constexpr double kGoodRoundTrip = 50e-6;

// Reference side: answers the pings of `client` until it says done.
template <class Now>
void serve_pings(MPI_Comm comm, int client, Now reference, MessageCount& count) {
  for (;;) {
    int what = kDone;
    collrepro::check(MPI_Recv(&what, 1, MPI_INT, client, kPingTag, comm, MPI_STATUS_IGNORE), "MPI_Recv (ping)");
    if (what == kDone) return;
    const double t = reference();
    collrepro::check(MPI_Send(&t, 1, MPI_DOUBLE, client, kPingTag, comm), "MPI_Send (pong)");
    ++count.sent;
  }
}

// Client side: the best of at least `exchanges` ping-pongs with `ref` (with `adaptive`, up to
// 3x more until one round trip is below kGoodRoundTrip). The session stays open: end it with
// end_pings.
template <class Now>
FitPoint best_ping(MPI_Comm comm, int ref, int exchanges, bool adaptive, Now local, MessageCount& count) {
  FitPoint best{0, 0, std::numeric_limits<double>::infinity()};
  const int most = adaptive ? 3 * exchanges : exchanges;
  for (int e = 0; e < most && (e < exchanges || best.rtt > kGoodRoundTrip); ++e) {
    double reply = 0;
    const double t1 = local();
    collrepro::check(MPI_Send(&kPing, 1, MPI_INT, ref, kPingTag, comm), "MPI_Send (ping)");
    collrepro::check(MPI_Recv(&reply, 1, MPI_DOUBLE, ref, kPingTag, comm, MPI_STATUS_IGNORE), "MPI_Recv (pong)");
    const double t2 = local();
    ++count.sent;
    if (t2 - t1 < best.rtt) best = {(t1 + t2) / 2, reply - (t1 + t2) / 2, t2 - t1};
  }
  return best;
}

inline void end_pings(MPI_Comm comm, int ref, MessageCount& count) {
  collrepro::check(MPI_Send(&kDone, 1, MPI_INT, ref, kPingTag, comm), "MPI_Send (done)");
  ++count.sent;
}

}  // namespace collbench

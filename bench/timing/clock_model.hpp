// Clock models and their composition: the pure arithmetic behind clock synchronization
// (no MPI; exhaustively unit-tested in tests/driver/clock_model_test.cpp).
//
// A model maps a rank's local clock reading to the reference timeline with a line:
//   reference = local + offset + drift * local        (slope 1 + drift)
// Models compose: if A maps a child's clock to its parent's and B maps the parent's clock to
// the reference, then compose(B, A) maps the child's clock to the reference, exactly:
//   drift = dA + dB + dA * dB,   offset = oB + (1 + dB) * oA.
// The hierarchical synchronization (clock_sync_hierarchical.cpp) fits one model per edge of
// a binomial tree and composes them from the root down; binomial_parent/_children give
// that tree, and compose_tree does the whole composition for a known set of edge models.
#pragma once

#include <vector>

namespace collbench {

struct ClockModel {
  double offset = 0;
  double drift = 0;
  double global(double local) const { return local + offset + drift * local; }
};

// outer after inner: local -> inner's timeline -> outer's timeline.
ClockModel compose(const ClockModel& outer, const ClockModel& inner);

// One ping-pong fit point: x = the client's local mid-point, y = reference - x, rtt = the
// round trip (|error of y| <= rtt / 2 when the network is symmetric).
struct FitPoint {
  double x = 0, y = 0, rtt = 0;
};

// The model through `points`: a least-squares line when the points span at least
// `min_drift_span` seconds of x, else offset only (the median of y, drift 0).
ClockModel fit_line(const std::vector<FitPoint>& points, double min_drift_span);

// The binomial tree over ranks 0..size-1 used by the hierarchical synchronization. Rank r > 0
// has the parent r - lowbit(r) and is fitted in round log2(lowbit(r)); in round k the pairs
// are (r, r + 2^k) for every r that is a multiple of 2^(k+1), so each rank is in at most one
// pair per round and ceil(log2 size) rounds cover every edge.
int binomial_parent(int rank);                       // -1 for rank 0
int binomial_round(int rank);                        // the round rank (> 0) is fitted in
int binomial_rounds(int size);                       // ceil(log2 size)
std::vector<int> binomial_children(int rank, int size);  // by round, ascending

// Every rank's model to rank 0 from every rank's model to its parent (to_parent[0] ignored).
std::vector<ClockModel> compose_tree(const std::vector<ClockModel>& to_parent);

}  // namespace collbench

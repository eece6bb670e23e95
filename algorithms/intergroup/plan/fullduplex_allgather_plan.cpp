// Pure plan of seed 001 Algorithm 1; see fullduplex_allgather.cpp for the algorithm.
#include "collrepro/exchange_plan.hpp"
#include "collrepro/partition.hpp"

namespace collrepro::inter {
namespace {

using Size = std::size_t;

// Role A: a_me exchanges with b_j, the process whose subgroup it belongs to.
ExchangePlan plan_role_a(int n_local, int n_remote, int me, Size k_local, Size k_remote) {
  const BalancedPartition subgroups(static_cast<Size>(n_local), static_cast<Size>(n_remote));
  auto segment_of = [&](Size i, Size& offset, Size& bytes) {
    const Size j = subgroups.owner(i);
    const BalancedPartition segments(k_remote, subgroups.size(j));
    offset = j * k_remote + segments.start(i - subgroups.start(j));
    bytes = segments.size(i - subgroups.start(j));
    return j;
  };
  ExchangePlan plan;
  Size offset = 0, bytes = 0;
  const int partner = static_cast<int>(segment_of(static_cast<Size>(me), offset, bytes));
  if (k_local > 0) plan.sends.push_back({partner, 0, k_local});
  if (bytes > 0) plan.recvs.push_back({partner, offset, bytes});
  for (Size i = 0; i < static_cast<Size>(n_local); ++i) {
    segment_of(i, offset, bytes);
    plan.gather_counts.push_back(bytes);
    plan.gather_displs.push_back(offset);
  }
  return plan;
}

// Role B: b_me sends one segment of its block to, and receives the whole block of, every
// member of its subgroup s_me of A.
ExchangePlan plan_role_b(int n_local, int n_remote, int me, Size k_local, Size k_remote) {
  const BalancedPartition subgroups(static_cast<Size>(n_remote), static_cast<Size>(n_local));
  const Size j = static_cast<Size>(me);
  const BalancedPartition segments(k_local, subgroups.size(j));
  ExchangePlan plan;
  for (Size t = 0; t < subgroups.size(j); ++t) {
    const int member = static_cast<int>(subgroups.start(j) + t);
    if (segments.size(t) > 0) plan.sends.push_back({member, segments.start(t), segments.size(t)});
    if (k_remote > 0) plan.recvs.push_back({member, (subgroups.start(j) + t) * k_remote, k_remote});
  }
  for (Size b = 0; b < static_cast<Size>(n_local); ++b) {
    plan.gather_counts.push_back(subgroups.size(b) * k_remote);
    plan.gather_displs.push_back(subgroups.start(b) * k_remote);
  }
  return plan;
}

}  // namespace

ExchangePlan plan_fullduplex_allgather(int n_local, int n_remote, int me, Size k_local, Size k_remote) {
  return n_local >= n_remote ? plan_role_a(n_local, n_remote, me, k_local, k_remote)
                             : plan_role_b(n_local, n_remote, me, k_local, k_remote);
}

}  // namespace collrepro::inter

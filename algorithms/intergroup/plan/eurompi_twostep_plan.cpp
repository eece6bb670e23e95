// Pure plan of the EuroMPI'18 two-step variant; see eurompi_twostep.cpp.
#include <algorithm>

#include "collrepro/exchange_plan.hpp"
#include "collrepro/partition.hpp"

namespace collrepro::inter {
namespace {

using Size = std::size_t;

// The g rank groups of A: the first h have q + e + 1 members, the rest q + e, where
// p = g q + rem, e = floor(rem / g), h = rem mod g. Equivalently a balanced partition of
// p into g parts.
BalancedPartition rank_groups(Size p, Size q) { return BalancedPartition(p, p / q); }

// Segment t of a k_B-byte block cut into g segments of ceil(k_B / g) bytes, the tail
// truncated (empty segments when k_B < g).
Size segment_start(Size t, Size k, Size g) { return std::min(k, t * ((k + g - 1) / g)); }
Size segment_size(Size t, Size k, Size g) { return segment_start(t + 1, k, g) - segment_start(t, k, g); }

TwoStepPlan plan_role_a(int n_local, int n_remote, int me, Size k_local, Size k_remote) {
  const Size p = static_cast<Size>(n_local), q = static_cast<Size>(n_remote), g = p / q;
  const BalancedPartition groups = rank_groups(p, q);
  TwoStepPlan plan;
  plan.exchange = plan_fullduplex_allgather(n_local, n_remote, me, k_local, k_remote);
  plan.exchange.recvs.clear();  // B -> A follows the rank groups instead of the subgroups
  plan.exchange.gather_counts.clear();
  plan.exchange.gather_displs.clear();
  const Size t = groups.owner(static_cast<Size>(me)), offset = static_cast<Size>(me) - groups.start(t);
  plan.rank_group_color = static_cast<int>(t);
  plan.rank_group_key = static_cast<int>(offset);
  for (Size o = 0; o < groups.size(t); ++o) {
    plan.rank_group_counts.push_back(o < q ? k_remote : 0);
    plan.rank_group_displs.push_back(std::min(o, q) * k_remote);
  }
  if (offset >= q) return plan;  // a remainder process only sends
  const Size seg = segment_size(t, k_remote, g);
  if (seg > 0) plan.exchange.recvs.push_back({static_cast<int>(offset), offset * k_remote + segment_start(t, k_remote, g), seg});
  plan.offset_color = static_cast<int>(offset);
  plan.offset_key = static_cast<int>(t);
  for (Size u = 0; u < g; ++u) {
    plan.offset_counts.push_back(segment_size(u, k_remote, g));
    plan.offset_displs.push_back(offset * k_remote + segment_start(u, k_remote, g));
  }
  return plan;
}

TwoStepPlan plan_role_b(int n_local, int n_remote, int me, Size k_local, Size k_remote) {
  const Size p = static_cast<Size>(n_remote), q = static_cast<Size>(n_local), g = p / q;
  const BalancedPartition groups = rank_groups(p, q);
  TwoStepPlan plan;
  plan.exchange = plan_fullduplex_allgather(n_local, n_remote, me, k_local, k_remote);
  plan.exchange.sends.clear();  // B -> A: one segment to offset `me` of every rank group
  for (Size t = 0; t < g; ++t) {
    const Size seg = segment_size(t, k_local, g);
    if (seg > 0)
      plan.exchange.sends.push_back({static_cast<int>(groups.start(t)) + me, segment_start(t, k_local, g), seg});
  }
  return plan;
}

}  // namespace

TwoStepPlan plan_eurompi_twostep(int n_local, int n_remote, int me, Size k_local, Size k_remote) {
  return n_local >= n_remote ? plan_role_a(n_local, n_remote, me, k_local, k_remote)
                             : plan_role_b(n_local, n_remote, me, k_local, k_remote);
}

}  // namespace collrepro::inter

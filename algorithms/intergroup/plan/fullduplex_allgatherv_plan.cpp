// Pure plan of seed 001 Algorithm 2; see fullduplex_allgatherv.cpp for the algorithm.
#include <algorithm>

#include "collrepro/exchange_plan.hpp"
#include "collrepro/partition.hpp"

namespace collrepro::inter {

using Size = std::size_t;

std::vector<Transfer> plan_allgatherv_sends(Size my_prefix, Size my_bytes, Size k_total, int n_remote) {
  std::vector<Transfer> sends;
  if (my_bytes == 0) return sends;  // also avoids owner() on an empty partition
  const BalancedPartition chunks(k_total, static_cast<Size>(n_remote));
  const Size end = my_prefix + my_bytes;
  for (Size c = chunks.owner(my_prefix); c < chunks.parts() && chunks.start(c) < end; ++c) {
    const Size lo = std::max(my_prefix, chunks.start(c)), hi = std::min(end, chunks.end(c));
    if (hi > lo) sends.push_back({static_cast<int>(c), lo - my_prefix, hi - lo});
  }
  return sends;
}

std::vector<Transfer> plan_allgatherv_recvs(int me, int n_local, const std::vector<Size>& remote_counts,
                                            bool ordered) {
  Size total = 0;
  for (Size k : remote_counts) total += k;
  const BalancedPartition chunks(total, static_cast<Size>(n_local));
  const Size lo = chunks.start(static_cast<Size>(me)), hi = chunks.end(static_cast<Size>(me));
  std::vector<Transfer> recvs;
  bool last_is_multi_target = false;
  Size prefix = 0;
  for (Size i = 0; i < remote_counts.size() && prefix < hi; prefix += remote_counts[i], ++i) {
    const Size a = std::max(prefix, lo), b = std::min(prefix + remote_counts[i], hi);
    if (b <= a) continue;
    recvs.push_back({static_cast<int>(i), a, b - a});
    last_is_multi_target = prefix + remote_counts[i] > hi;
  }
  if (ordered && recvs.size() > 1) {
    // seed 001 §4.1: [high multi-target, between..., low] or [between... high, low]: the lowest
    // sender always last; the highest first only when its block continues past my chunk.
    std::rotate(recvs.begin(), recvs.begin() + 1, recvs.end());  // low sender to the back
    if (last_is_multi_target) std::rotate(recvs.begin(), recvs.end() - 2, recvs.end() - 1);
  }
  return recvs;
}

void plan_allgatherv_gather(int n_local, Size remote_total, std::vector<Size>& counts, std::vector<Size>& displs) {
  const BalancedPartition chunks(remote_total, static_cast<Size>(n_local));
  counts.resize(static_cast<Size>(n_local));
  displs.resize(static_cast<Size>(n_local));
  for (Size r = 0; r < counts.size(); ++r) {
    counts[r] = chunks.size(r);
    displs[r] = chunks.start(r);
  }
}

}  // namespace collrepro::inter

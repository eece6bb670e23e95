// Pure plan of the volume-minimal half-duplex fully connected variant; see
// halfduplex_fc_minvol.cpp and collrepro/halfduplex_fc_minvol_plan.hpp.
#include "collrepro/halfduplex_fc_minvol_plan.hpp"

#include <stdexcept>
#include <string>

#include "collrepro/partition.hpp"

namespace collrepro::inter {

HalfDuplexFcMinvolPlan plan_halfduplex_fc_minvol(int p, int q, bool sender, int me) {
  if (p < 1 || q < 1 || me < 0 || me >= (sender ? p : q))
    throw std::invalid_argument("plan_halfduplex_fc_minvol: p=" + std::to_string(p) + " q=" + std::to_string(q) +
                                (sender ? " sender " : " receiver ") + std::to_string(me) + " is out of range");
  const BalancedPartition owners(static_cast<std::size_t>(p), static_cast<std::size_t>(q));
  HalfDuplexFcMinvolPlan plan;
  if (sender) {
    plan.send_to = static_cast<int>(owners.owner(static_cast<std::size_t>(me)));
    return plan;
  }
  const auto mine = static_cast<std::size_t>(me);
  plan.own_lo = static_cast<int>(owners.start(mine));
  plan.own_hi = static_cast<int>(owners.end(mine));
  for (std::size_t j = 0; j < owners.parts(); ++j) {
    plan.counts.push_back(owners.size(j));
    plan.displs.push_back(owners.start(j));
  }
  return plan;
}

std::size_t halfduplex_fc_minvol_busiest(std::size_t p, std::size_t q) { return q == 0 ? 0 : (p + q - 1) / q; }

std::size_t halfduplex_fc_minvol_bytes(std::size_t p, std::size_t q, std::size_t k) {
  if (q == 0) return 0;
  return p * k + (q - 1) * p * k;
}

std::size_t halfduplex_fc_paper_bytes(std::size_t p, std::size_t q, std::size_t k) {
  if (p == 0 || q == 0) return 0;
  if (p >= q) return q * k + p * (p - 1) * k;
  return q * p * k;
}

}  // namespace collrepro::inter

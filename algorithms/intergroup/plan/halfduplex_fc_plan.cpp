// Pure plan of the half-duplex fully connected algorithm; see halfduplex_fc.cpp.
#include "collrepro/halfduplex_fc_plan.hpp"

namespace collrepro::inter {
namespace {

HalfDuplexFcPlan plan_many_senders(int q, bool sender, int me) {  // p >= q
  HalfDuplexFcPlan plan;
  if (sender && me < q) plan.send_to = me;
  if (!sender) plan.recv_from = me;
  if (!sender || me >= q) {
    plan.gather_color = 0;
    plan.gather_key = me;
  }
  return plan;
}

HalfDuplexFcPlan plan_many_receivers(int p, int q, bool sender, int me) {  // p < q
  const int f = q / p;
  HalfDuplexFcPlan plan;
  if (sender) {
    plan.bcast_color = me;
    plan.bcast_key = 0;
    return plan;
  }
  if (me < f * p) {
    plan.bcast_color = me % p;
    plan.bcast_key = 1 + me / p;
    plan.sub_color = me / p;
    plan.sub_key = me % p;
  } else {
    plan.sub_color = (me - f * p) % f;
    plan.sub_key = p + (me - f * p) / f;
  }
  // Subgroup c holds its p message holders plus the leftovers l with (l - f p) mod f = c.
  const int r = q - f * p;
  const int leftovers = r / f + ((plan.sub_color < r % f) ? 1 : 0);
  plan.sub_counts.assign(static_cast<std::size_t>(p), 1);
  plan.sub_counts.resize(static_cast<std::size_t>(p + leftovers), 0);
  return plan;
}

}  // namespace

HalfDuplexFcPlan plan_halfduplex_fc(int p, int q, bool sender, int me) {
  return p >= q ? plan_many_senders(q, sender, me) : plan_many_receivers(p, q, sender, me);
}

}  // namespace collrepro::inter

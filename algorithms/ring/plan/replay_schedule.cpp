// Checking ring schedules (pure, no MPI): one position's plan read off a global schedule,
// and a replay that moves every message along the ring and checks seed 000's rules
// (§II model, §IV-B feasibility: neighbours only, one send and one receive per process per
// round, message availability, completeness). Used by the unit tests and by anyone who
// wants to check a schedule they wrote down.
#include <sstream>
#include <stdexcept>

#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {

std::vector<RankPlan> project(const Schedule& schedule) {
  std::vector<RankPlan> plans;
  for (int x = 0; x < schedule.positions(); ++x)
    plans.push_back({x, schedule.messages, std::vector<Step>(schedule.rounds.size())});
  auto twice = [](const char* what, const Transfer& tr, int x, std::size_t t) {
    return std::logic_error("position " + std::to_string(x) + " " + what + " twice in round " + std::to_string(t) +
                            " (second: " + std::to_string(tr.from) + " -> " + std::to_string(tr.to) + ")");
  };
  for (std::size_t t = 0; t < schedule.rounds.size(); ++t)
    for (const Transfer& tr : schedule.rounds[t]) {
      Step& out = plans.at(static_cast<std::size_t>(tr.from)).rounds[t];
      if (out.sends()) throw twice("sends", tr, tr.from, t);
      out.send_to = tr.to;
      out.send_message = tr.message;
      Step& in = plans.at(static_cast<std::size_t>(tr.to)).rounds[t];
      if (in.receives()) throw twice("receives", tr, tr.to, t);
      in.recv_from = tr.from;
      in.recv_message = tr.message;
    }
  return plans;
}

namespace {

// Which messages each position holds; message m starts at position m.
class Holdings {
 public:
  Holdings(int positions, int messages)
      : messages_(messages), held_(static_cast<std::size_t>(positions) * static_cast<std::size_t>(messages)) {
    for (int m = 0; m < messages && m < positions; ++m) set(m, m);
  }
  bool has(int x, int m) const { return held_[index(x, m)] != 0; }
  void set(int x, int m) { held_[index(x, m)] = 1; }

 private:
  std::size_t index(int x, int m) const {
    return static_cast<std::size_t>(x) * static_cast<std::size_t>(messages_) + static_cast<std::size_t>(m);
  }
  int messages_;
  std::vector<unsigned char> held_;
};

bool neighbours(int a, int b, int n) { return (b - a + n) % n == 1 || (a - b + n) % n == 1; }

}  // namespace

Replay replay(const Schedule& s) {
  const int n = s.positions();
  Replay out;
  auto violation = [&](std::size_t t, const Transfer& tr, const std::string& what) {
    std::ostringstream os;
    os << "round " << t << ": " << tr.from << " -> " << tr.to << " m" << tr.message << " (" << to_string(tr.sequence)
       << ") " << what;
    out.violations.push_back(os.str());
  };
  Holdings held(n, s.messages);
  for (std::size_t t = 0; t < s.rounds.size(); ++t) {
    const auto& round = s.rounds[t];
    if (round.empty()) ++out.idle_rounds;
    std::vector<int> sends(static_cast<std::size_t>(n)), receives(static_cast<std::size_t>(n));
    std::vector<const Transfer*> delivered;
    for (const Transfer& tr : round) {
      ++out.transfers;
      if (tr.from < 0 || tr.from >= n || tr.to < 0 || tr.to >= n) {
        violation(t, tr, "names a position outside the ring");
        continue;
      }
      if (tr.message < 0 || tr.message >= s.messages) {
        violation(t, tr, "names no message");
        continue;
      }
      const std::size_t before = out.violations.size();
      if (!neighbours(tr.from, tr.to, n)) violation(t, tr, "is not a ring link");
      if (++sends[static_cast<std::size_t>(tr.from)] > 1) violation(t, tr, "is the sender's second send");
      if (++receives[static_cast<std::size_t>(tr.to)] > 1) violation(t, tr, "is the receiver's second receive");
      if (!held.has(tr.from, tr.message)) violation(t, tr, "sends a message the sender does not hold");
      if (out.violations.size() == before) delivered.push_back(&tr);
    }
    // Deliveries take effect at the end of the round (a message cannot be forwarded in the
    // round it arrives).
    for (const Transfer* tr : delivered) {
      if (held.has(tr->to, tr->message)) ++out.redundant;
      held.set(tr->to, tr->message);
    }
  }
  for (int x = s.p; x < n; ++x) {
    int missing = 0;
    for (int m = 0; m < s.p; ++m) missing += held.has(x, m) ? 0 : 1;
    if (missing > 0) {
      ++out.incomplete_receivers;
      out.violations.push_back("receiver at position " + std::to_string(x) + " misses " + std::to_string(missing) +
                               " of the " + std::to_string(s.p) + " messages");
    }
  }
  return out;
}

std::string Replay::summary(std::size_t max_lines) const {
  std::ostringstream os;
  os << transfers << " transfers, " << violations.size() << " violations, " << incomplete_receivers
     << " incomplete receivers, " << redundant << " redundant, " << idle_rounds << " idle rounds";
  for (std::size_t i = 0; i < violations.size() && i < max_lines; ++i) os << "\n  " << violations[i];
  return os.str();
}

}  // namespace collrepro::ring

#include "timing/phase_timer.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "collrepro/mpi.hpp"

namespace collbench {

namespace {

using collrepro::check;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + '\n';
  return out;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  return out;
}

// Rank 0: the names of the lowest rank that names `count` phases (sent to rank 0 if it is not 0).
std::vector<std::string> names_on_root(MPI_Comm world, const std::vector<std::string>& mine, int count) {
  int rank = 0;
  check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  const int candidate = static_cast<int>(mine.size()) == count ? rank : INT_MAX;
  int source = INT_MAX;
  check(MPI_Allreduce(&candidate, &source, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce (phase names)");
  constexpr int kTag = 3190;
  if (source == 0) return rank == 0 ? mine : std::vector<std::string>{};
  if (rank == source) {
    const std::string text = joined(mine);
    check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTag, world), "MPI_Send (phase names)");
  } else if (rank == 0) {
    MPI_Status status;
    check(MPI_Probe(source, kTag, world, &status), "MPI_Probe (phase names)");
    int size = 0;
    check(MPI_Get_count(&status, MPI_CHAR, &size), "MPI_Get_count");
    std::string text(static_cast<std::size_t>(size), '\0');
    check(MPI_Recv(text.data(), size, MPI_CHAR, source, kTag, world, MPI_STATUS_IGNORE), "MPI_Recv (phase names)");
    return split_names(text);
  }
  return {};
}

}  // namespace

PhaseTimer::PhaseTimer(MPI_Comm world, PreparedPoint& point, std::function<double()> now)
    : world_(world), point_(point), now_(std::move(now)) {
  const std::vector<std::string> mine = point.phases();
  const int own = static_cast<int>(mine.size());
  int most = 0;
  check(MPI_Allreduce(&own, &most, 1, MPI_INT, MPI_MAX, world_), "MPI_Allreduce (phase count)");
  int least = 0;
  const int named = own == 0 ? most : own;  // ranks that name no phases agree with any count
  check(MPI_Allreduce(&named, &least, 1, MPI_INT, MPI_MIN, world_), "MPI_Allreduce (phase count)");
  if (least != most)
    throw std::logic_error("per-phase timing: the ranks of one call name " + std::to_string(least) + " and " +
                           std::to_string(most) + " phases (every rank must name the same phases)");
  if (most == 0) {
    names_ = {"call"};
  } else {
    names_ = names_on_root(world_, mine, most);
  }
  count_ = most == 0 ? 1 : static_cast<std::size_t>(most);
  marks_.reserve(count_ + 1);
  point_.set_phase_clock(this);
}

PhaseTimer::~PhaseTimer() { point_.set_phase_clock(nullptr); }

void PhaseTimer::end_repetition(double start, double end) {
  if (!point_.in_point()) {  // a rank outside the point ends no phase: 0 leaves it out of the max
    ends_.insert(ends_.end(), count_, 0.0);
    return;
  }
  if (marks_.size() > count_)
    throw std::logic_error("per-phase timing: a call marked " + std::to_string(marks_.size()) + " phase ends, it names " +
                           std::to_string(count_));
  marks_.resize(count_, end);  // a rank outside the point, or a call of one phase
  marks_.back() = end;         // the last phase ends where the repetition's time ends
  for (double m : marks_) ends_.push_back(std::max(0.0, m - start));
  marks_.clear();
}

void PhaseTimer::collect(std::vector<std::string>& names, std::vector<double>& ends) const {
  int rank = 0;
  check(MPI_Comm_rank(world_, &rank), "MPI_Comm_rank");
  std::vector<double> worst(rank == 0 ? ends_.size() : 0);
  check(MPI_Reduce(ends_.data(), rank == 0 ? worst.data() : nullptr, static_cast<int>(ends_.size()), MPI_DOUBLE, MPI_MAX, 0,
                   world_),
        "MPI_Reduce (phase ends)");
  if (rank != 0) return;
  names = names_;
  ends = std::move(worst);
}

std::unique_ptr<PhaseTimer> phase_timer(bool on, MPI_Comm world, PreparedPoint& point, std::function<double()> now) {
  if (!on) return nullptr;
  return std::make_unique<PhaseTimer>(world, point, std::move(now));
}

}  // namespace collbench

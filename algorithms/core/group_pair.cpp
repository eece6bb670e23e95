#include "collrepro/group_pair.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collrepro {

namespace {

constexpr int kIntercommTag = 7411;

void validate_sides(std::span<const int> sides, int world_size) {
  if (static_cast<int>(sides.size()) != world_size)
    throw std::invalid_argument("GroupPair: sides has " + std::to_string(sides.size()) +
                                " entries for a communicator of " + std::to_string(world_size));
  const auto a = std::count(sides.begin(), sides.end(), 0);
  const auto b = std::count(sides.begin(), sides.end(), 1);
  if (a == 0 || b == 0) throw std::invalid_argument("GroupPair: both groups need at least one process");
  if (a + b + std::count(sides.begin(), sides.end(), -1) != static_cast<long>(sides.size()))
    throw std::invalid_argument("GroupPair: a side must be 0, 1 or -1");
}

// An owned group handle, freed on scope exit.
struct Group {
  MPI_Group handle = MPI_GROUP_NULL;
  Group() = default;
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  ~Group() {
    if (handle != MPI_GROUP_NULL) MPI_Group_free(&handle);
  }
};

int first_world_rank_of(std::span<const int> sides, int side) {
  return static_cast<int>(std::find(sides.begin(), sides.end(), side) - sides.begin());
}

}  // namespace

const char* contract::to_string(PairMode m) { return name(m).data(); }

std::optional<GroupPair> GroupPair::create(MPI_Comm world, std::span<const int> sides, PairMode mode) {
  int world_rank = 0, world_size = 0;
  check(MPI_Comm_rank(world, &world_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(world, &world_size), "MPI_Comm_size");
  validate_sides(sides, world_size);
  const int my_side = sides[static_cast<std::size_t>(world_rank)];
  const int color = my_side < 0 ? MPI_UNDEFINED : my_side;

  Comm local = Comm::split(world, color, world_rank);
  Comm participants = Comm::split(world, my_side < 0 ? MPI_UNDEFINED : 0, world_rank);
  if (my_side < 0) return std::nullopt;

  GroupPair pair;
  pair.side_ = my_side;
  pair.local_rank_ = local.rank();
  pair.local_ = std::move(local);

  if (mode == PairMode::Intercomm) {
    MPI_Comm inter = MPI_COMM_NULL;
    const int remote_leader = first_world_rank_of(sides, 1 - my_side);
    check(MPI_Intercomm_create(pair.local_.get(), 0, world, remote_leader, kIntercommTag, &inter),
          "MPI_Intercomm_create");
    pair.intercomm_ = Comm(inter);
    MPI_Comm merged = MPI_COMM_NULL;
    check(MPI_Intercomm_merge(inter, my_side == 1, &merged), "MPI_Intercomm_merge");
    pair.both_ = Comm(merged);
  } else {
    pair.both_ = std::move(participants);
  }

  pair.number_members();
  return pair;
}

GroupPair GroupPair::from_intercomm(MPI_Comm inter) {
  GroupPair pair;
  pair.intercomm_ = Comm::dup(inter);
  MPI_Comm merged = MPI_COMM_NULL;
  check(MPI_Intercomm_merge(pair.intercomm_.get(), 0, &merged), "MPI_Intercomm_merge");
  pair.both_ = Comm(merged);
  // The group holding merged rank 0 is side 0: translate our local rank 0 into the merge.
  Group local, both;
  check(MPI_Comm_group(pair.intercomm_.get(), &local.handle), "MPI_Comm_group");
  check(MPI_Comm_group(merged, &both.handle), "MPI_Comm_group");
  int first = 0, first_in_both = MPI_UNDEFINED;
  check(MPI_Group_translate_ranks(local.handle, 1, &first, both.handle, &first_in_both), "MPI_Group_translate_ranks");
  pair.side_ = first_in_both == 0 ? 0 : 1;
  check(MPI_Comm_rank(pair.intercomm_.get(), &pair.local_rank_), "MPI_Comm_rank");
  pair.local_ = Comm::split(merged, pair.side_, pair.local_rank_);
  pair.number_members();
  return pair;
}

void GroupPair::number_members() {
  // members_[s][r]: rank in both() of local rank r of side s (world order within a side).
  const int n = both_.size();
  std::vector<int> side_of(static_cast<std::size_t>(n));
  check(MPI_Allgather(&side_, 1, MPI_INT, side_of.data(), 1, MPI_INT, both_.get()), "MPI_Allgather");
  for (int r = 0; r < n; ++r) members_[side_of[static_cast<std::size_t>(r)]].push_back(r);
}

MPI_Comm GroupPair::intercomm() const {
  if (!intercomm_)
    throw std::logic_error("this GroupPair was built from one intracommunicator: no intercommunicator");
  return intercomm_.get();
}

std::vector<int> block_sides(int nprocs, int p, int q) {
  std::vector<int> s(static_cast<std::size_t>(nprocs), -1);
  for (int r = 0; r < nprocs && r < p + q; ++r) s[static_cast<std::size_t>(r)] = r < p ? 0 : 1;
  return s;
}

std::vector<int> interleaved_sides(int nprocs, int p, int q) {
  std::vector<int> s(static_cast<std::size_t>(nprocs), -1);
  int a = 0, b = 0;
  for (int r = 0; r < nprocs && a + b < p + q; ++r) {
    const bool take_a = (a < p) && (b >= q || (r % 2 == 0));
    s[static_cast<std::size_t>(r)] = take_a ? 0 : 1;
    (take_a ? a : b)++;
  }
  return s;
}

}  // namespace collrepro

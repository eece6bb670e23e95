// GroupPair: what an inter-group algorithm sees of the two groups.
//
// Group A (side 0, p processes) and group B (side 1, q processes) are the two groups of
// the shape as configured. An algorithm sees: its local intracommunicator, its side,
// local and remote sizes, its role by size, and how to address remote rank j for
// point-to-point. A GroupPair is built either from a real intercommunicator
// (MPI_Intercomm_create) or from one intracommunicator holding both groups, where remote
// rank j is a translated rank. Algorithms must work on both; only the `native`
// baselines need the real intercommunicator (has_intercomm()).
//
// All communicators are private duplicates, so an algorithm's traffic never matches
// anybody else's. Setup (splits, merges, translations) is collective and happens outside
// any timed region.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "collrepro/contract_enums.hpp"
#include "collrepro/mpi.hpp"

namespace collrepro {

// Role by group size (seed 001 §2 assumes q <= p): the larger group takes role A; on equal
// sizes both groups take role A. Never "the low group".
enum class Role { A, B };

// How the two groups are connected: a real intercommunicator, or one intracommunicator holding
// both groups. The contract's enum pair_mode (the sweep key and the CSV column pair_mode), so the
// spelling the writer uses is the contract's; to_string lives beside it, for argument-dependent
// lookup from any namespace.
using PairMode = contract::PairMode;
namespace contract {
const char* to_string(PairMode m);
}  // namespace contract
using contract::to_string;

class GroupPair {
 public:
  // Collective over `world`. sides[r] is 0 (group A), 1 (group B) or -1 (not taking part)
  // for every rank r of `world`; both groups must be non-empty. Returns nullopt on ranks
  // with side -1. Local ranks follow world rank order within each side.
  static std::optional<GroupPair> create(MPI_Comm world, std::span<const int> sides, PairMode mode);
  // Collective over an existing intercommunicator (the interposition library's case): private
  // duplicates of it, of its merge and of the local group. Side 0 is the group MPI_Intercomm_merge
  // puts first, so both groups agree on it; local and remote ranks are those of `inter`.
  static GroupPair from_intercomm(MPI_Comm inter);

  int side() const { return side_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return static_cast<int>(members_[side_].size()); }
  int remote_size() const { return static_cast<int>(members_[1 - side_].size()); }
  int size_of(int side) const { return static_cast<int>(members_[side].size()); }
  Role role() const { return local_size() >= remote_size() ? Role::A : Role::B; }

  // My group's intracommunicator (local ranks).
  MPI_Comm local() const { return local_.get(); }
  // The communicator for point-to-point with the remote group, and the rank there of
  // remote rank j: the intercommunicator (rank j) or the union intracommunicator.
  MPI_Comm p2p() const { return p2p_comm(); }
  int remote(int j) const { return intercomm_ ? j : members_[1 - side_][static_cast<std::size_t>(j)]; }

  // One intracommunicator holding both groups (for ring schedules and the like), and the
  // rank there of local rank r of `side`.
  MPI_Comm both() const { return both_.get(); }
  int rank_in_both(int side, int r) const { return members_[side][static_cast<std::size_t>(r)]; }

  bool has_intercomm() const { return static_cast<bool>(intercomm_); }
  // Throws if this pair was built without an intercommunicator.
  MPI_Comm intercomm() const;
  PairMode mode() const { return intercomm_ ? PairMode::Intercomm : PairMode::Intracomm; }

 private:
  GroupPair() = default;
  void number_members();  // fills members_ from both_ and side_ (collective over both_)
  MPI_Comm p2p_comm() const { return intercomm_ ? intercomm_.get() : both_.get(); }

  int side_ = 0;
  int local_rank_ = 0;
  Comm local_;
  Comm both_;       // both groups, side 0 first when built from an intercommunicator
  Comm intercomm_;  // null in Intracomm mode
  std::vector<int> members_[2];  // members_[s][r] = rank in both() of local rank r of side s
};

// Side assignments (the `sides` argument above) for the usual placements of p + q ranks
// on `nprocs` world ranks; ranks beyond p + q get -1.
std::vector<int> block_sides(int nprocs, int p, int q);        // A = ranks 0..p-1, then B
std::vector<int> interleaved_sides(int nprocs, int p, int q);  // alternate A and B while both last

}  // namespace collrepro

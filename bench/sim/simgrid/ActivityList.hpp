/* collrepro: the pending activities of a SimGrid 3.32 actor, with removal in constant time.
 *
 * Why: SimGrid 3.32 keeps an actor's pending (non-blocking) activities in a std::list and
 * drops a finished one with list::remove, which walks the whole list. The maestro actor holds
 * every detached communication (SMPI detaches each send under smpi/send-is-detached-thresh),
 * so at 2048 simulated ranks every message costs a walk over some 2048 nodes: 52-58 % of a
 * 2048-rank paper run's CPU (results/sim/README.md, "Where simulated time goes").
 *
 * What: the same list, in the same order, plus an index from each activity to its nodes.
 * Appending, removing, clearing and iterating keep list::remove's semantics exactly (remove
 * drops every entry of that activity; iteration visits entries in insertion order), so a
 * simulation takes the same steps and gives the same results, only faster.
 *
 * How it is used: `collrepro-py sim simgrid build` (python/collrepro/installations/simgrid.py)
 * unpacks Debian's SimGrid 3.32 source package, copies this file into src/kernel/actor/, makes
 * ActorImpl's `activities_` an ActivityList<activity::ActivityImplPtr>, and builds the library
 * into the per-user cache. collbench does not include it; tests/unit/activity_list_test.cpp
 * checks it against std::list::remove over random sequences of operations.
 *
 * Pointer: a smart pointer with get() and element_type (boost::intrusive_ptr in SimGrid).
 */
#ifndef COLLREPRO_SIMGRID_ACTIVITY_LIST_HPP
#define COLLREPRO_SIMGRID_ACTIVITY_LIST_HPP

#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>

namespace simgrid::kernel::actor {

template <class Pointer> class ActivityList {
  using Activity = typename Pointer::element_type;
  using Items    = std::list<Pointer>;
  Items items_;                                                      // insertion order
  std::unordered_multimap<const Activity*, typename Items::iterator> where_; // each entry's node

public:
  using iterator       = typename Items::iterator;
  using const_iterator = typename Items::const_iterator;

  template <class Arg> void emplace_back(Arg&& activity)
  {
    items_.emplace_back(std::forward<Arg>(activity));
    auto last = std::prev(items_.end());
    where_.emplace(last->get(), last);
  }

  /** Drops every entry of `activity` (as std::list::remove does); nothing if it has none. */
  void remove(const Activity* activity)
  {
    auto [first, last] = where_.equal_range(activity);
    if (first == last)
      return;
    Items dropped; // released after the index is consistent: a release may end the activity
    for (auto entry = first; entry != last; ++entry)
      dropped.splice(dropped.end(), items_, entry->second);
    where_.erase(first, last);
  }
  void remove(const Pointer& activity) { remove(activity.get()); }

  void clear()
  {
    where_.clear();
    Items dropped;
    dropped.swap(items_);
  }

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
};

} // namespace simgrid::kernel::actor

#endif

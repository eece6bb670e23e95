// Plans kept per communicator: the chosen algorithm, its prepared Runner and the argument
// block the Runner reads (kept at a stable address). A small least-recently-used list; the
// live plans are counted so that tests can see the cache freed (collrepro_pmpi_live_plans()).
#pragma once

#include <atomic>
#include <cstddef>
#include <list>
#include <memory>
#include <utility>

#include "collrepro/registry.hpp"

namespace collrepro::pmpi {

// Plans alive in this process.
std::atomic<long>& live_plans();

template <class Args>
struct Plan {
  Plan() { ++live_plans(); }
  ~Plan() { --live_plans(); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  const Algorithm* algorithm = nullptr;  // nullptr: the native call serves this shape
  std::unique_ptr<Args> args;            // the Runner keeps a reference to it
  std::unique_ptr<Runner> runner;
};

// At most `capacity` plans, the most recently used first. Keys compare with ==; the lists are
// short, so a linear search beats hashing the vectors a key holds.
template <class Key, class Args>
class PlanCache {
 public:
  explicit PlanCache(std::size_t capacity) : capacity_(capacity) {}

  // The plan for `key`, moved to the front; nullptr on a miss.
  Plan<Args>* find(const Key& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        if (it != entries_.begin()) entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second.get();
      }
    return nullptr;
  }

  // Stores `plan` under `key` at the front, dropping the least recently used beyond capacity.
  Plan<Args>& insert(Key key, std::unique_ptr<Plan<Args>> plan) {
    entries_.emplace_front(std::move(key), std::move(plan));
    while (entries_.size() > capacity_) entries_.pop_back();
    return *entries_.front().second;
  }

  std::size_t size() const { return entries_.size(); }

 private:
  std::size_t capacity_;
  std::list<std::pair<Key, std::unique_ptr<Plan<Args>>>> entries_;
};

}  // namespace collrepro::pmpi

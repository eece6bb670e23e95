// Selection rules: which algorithm serves a call, by collective, communicator shape and
// message size. A JSON tree in the spirit of MPICH's collective-selection files: every key is
// a condition, tried in file order, and the first leaf reached wins.
//
//   {
//     "collective=allgather": {
//       "groups=5:3": {
//         "msg_size<=4096":  {"algorithm=fullduplex-allgather": {}},
//         "any":             {"algorithm=native": {}}
//       }
//     },
//     "collective=neighbor-alltoall": {
//       "neighborhood=vonneumann:d=2,r=1": {"msg_size<=65536": {"algorithm=torus": {}}}
//     }
//   }
//
// Conditions: collective=NAME (registry names), groups=P:Q (inter-group sizes, either order),
// duplex=half|full, neighborhood=SPEC (the collbench syntax; the same offsets in any order
// match), msg_size<=N, msg_size>N (bytes: the block of one process; the largest block when
// blocks differ), any. Leaves: algorithm=NAME, NAME registered for the collective and not a
// native kind, or `native` (the MPI library's own call). Pure: no MPI.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/neighborhood.hpp"
#include "collrepro/registry.hpp"

namespace collrepro::pmpi {

// One line naming what is wrong and where.
class RulesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the rules see of one call.
struct Query {
  Collective collective = Collective::Allgather;
  int larger = 0, smaller = 0;       // inter-group: the group sizes, larger first
  bool half_duplex = false;          // inter-group: one direction carries no data
  std::vector<iso::Offset> offsets;  // isomorphic: the neighbourhood, sorted
  std::size_t msg_size = 0;          // bytes
};

class Rules {
 public:
  // Throws RulesError on malformed JSON, an unknown condition, a collective or algorithm the
  // registry does not know, or an empty rule set.
  static Rules parse(const std::string& text);
  static Rules load(const std::string& path);

  // The algorithm name ("native" included) of the first matching leaf, nullopt when none matches.
  std::optional<std::string> select(const Query& q) const;

 private:
  nlohmann::ordered_json tree_;
};

// Offsets in a canonical order, for comparing neighbourhoods whatever their listing order.
std::vector<iso::Offset> sorted_offsets(std::vector<iso::Offset> offsets);

}  // namespace collrepro::pmpi

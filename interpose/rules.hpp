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
// Conditions: collective=NAME (registry names), call=blocking|nonblocking|persistent (the call
// form: MPI_Allgather, MPI_Iallgather, MPI_Allgather_init; a tree without call= matches every
// form), groups=P:Q (inter-group sizes, either order),
// duplex=half|full, senders=N (a half-duplex inter-group call whose sending group has N
// processes: with groups=12:4 it tells 12 -> 4 from 4 -> 12; never a full-duplex call nor one
// where nobody sends), neighborhood=SPEC (the collbench syntax; the same offsets in any order
// match), msg_size<=N, msg_size>N (bytes: the block of one process; the largest block when
// blocks differ), any. Leaves: algorithm=NAME, NAME registered for the collective and not a
// native kind, or `native` (the MPI library's own call). A key appears once per object.
// Pure: no MPI.
//
// Bounded: a rules file is refused, with one line, beyond the caps below (far above anything
// colltune writes: a few KiB). The size is checked with stat before the file is read; the
// parse is one pass over the text (nlohmann's SAX interface into an ordered tree whose
// conditions are split and checked once), so its time is linear in the input. Error lines
// quote at most kExcerptChars characters of any key or value.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collrepro/neighborhood.hpp"
#include "collrepro/registry.hpp"

namespace collrepro::pmpi {

// The caps (interpose/README.md lists them with their error lines):
inline constexpr std::size_t kMaxRulesBytes = std::size_t{4} << 20;  // 4 MiB: the file (or text)
inline constexpr std::size_t kMaxRulesDepth = 32;                    // nested objects (a rule needs ~6)
inline constexpr std::size_t kMaxRulesKeys = 100000;                 // keys in the whole file
inline constexpr std::size_t kMaxRulesKeyBytes = 65536;              // one key (a long list: neighbourhood)
inline constexpr std::size_t kMaxRulesNeighborhoods = 64;            // different neighborhood= conditions
// The candidate offsets that the different generated neighbourhoods enumerate, in all (each its
// box [-R, R]^d, up to 2^20: two of the largest, 124 of moore:d=5,r=3).
inline constexpr std::size_t kMaxRulesNeighborhoodBoxes = std::size_t{1} << 21;
inline constexpr std::size_t kExcerptChars = 60;  // quoted of a key or value

// One line naming what is wrong and where.
class RulesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// At most `max` characters of `text` for an error line: control characters escaped, a longer
// text cut (at a UTF-8 character boundary) and marked with "...".
std::string excerpt(std::string_view text, std::size_t max = kExcerptChars);

// What the rules see of one call.
struct Query {
  Collective collective = Collective::Allgather;
  CallForm call = CallForm::Blocking;  // how the application called it
  int larger = 0, smaller = 0;       // inter-group: the group sizes, larger first
  bool half_duplex = false;          // inter-group: one direction carries no data
  int senders = 0;                   // inter-group, half duplex: the sending group's size; 0 none
  std::vector<iso::Offset> offsets;  // isomorphic: the neighbourhood, sorted
  std::size_t msg_size = 0;          // bytes
};

class Rules {
 public:
  // Throws RulesError on text over kMaxRulesBytes, malformed JSON, nesting, a key or a key
  // count over its cap, a duplicate key, an unknown condition, a collective or algorithm the
  // registry does not know, more than kMaxRulesNeighborhoods neighbourhoods, or an empty rule set.
  static Rules parse(std::string_view text);
  // read_file, then parse; errors name the file.
  static Rules load(const std::string& path);
  // The file's bytes. Throws RulesError (naming the file, the system's reason or the size and
  // the limit) when it cannot be read or is over kMaxRulesBytes (stat before reading, and the
  // read itself stops one byte past the cap).
  static std::string read_file(const std::string& path);

  // The algorithm name ("native" included) of the first matching leaf, nullopt when none matches.
  std::optional<std::string> select(const Query& q) const;

  struct Tree;  // the parsed, checked conditions (rules.cpp)

 private:
  std::shared_ptr<const Tree> tree_;
};

// The size of the one group that sends (p for group A, q for group B) when exactly one of the
// groups' byte totals is non-zero; 0 otherwise (full duplex, or nobody sends). The totals are
// the call's global shape (every process's block, as every process of both groups sees it), so
// every process computes the same value and all choose the same algorithm. Per-process counts
// would not do: in an Allgatherv a sender with an empty block sees nothing of its own group.
int sending_group(int p, int q, std::size_t bytes_a, std::size_t bytes_b);

// Offsets in a canonical order, for comparing neighbourhoods whatever their listing order.
std::vector<iso::Offset> sorted_offsets(std::vector<iso::Offset> offsets);

}  // namespace collrepro::pmpi

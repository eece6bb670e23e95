// Isomorphic neighbourhoods: the ordered list of s relative offsets C^0..C^{s-1} that every
// process of a d-dimensional torus declares identically (seed 004 §2, "s-neighborhood").
//
// Process R sends block i to R ⊕ C^i and receives block i from R ⊖ C^i; the order of the
// list is the order of the blocks in the send and receive buffers. Offsets are arbitrary
// integers (they may exceed the torus size), and the zero offset and repeated offsets are
// allowed. Pure: no MPI.
//
// Text syntax (parse / to_string round-trip):
//   moore:d=D,r=R           all C with max_j |c_j| <= R, zero excluded: s = (2R+1)^D - 1
//   vonneumann:d=D,r=R      all C with sum_j |c_j| <= R, zero excluded
//   octant:d=D,r=R          all C with 0 <= c_j <= R, zero excluded: s = (R+1)^D - 1
//                           (the "asymmetric, positive coordinates" Moore neighbourhood)
//   shells:d=D,r=R1+R2+...  all C with max_j |c_j| in {R1, R2, ...} (Chebyshev shells; the
//                           paper's "shales", e.g. shells:d=3,r=3+7 has s = 1396)
//   list:(c0,..,cD-1),(..)  explicit offsets in the given order; zero and repeats allowed
//
// ROW ORDER (the paper's "row order of neighbors", undefined there; defined here once and used
// everywhere): the generated kinds enumerate every integer vector of the box
// [lo, hi]^d lexicographically, c_0 outermost and c_{d-1} fastest, each coordinate ascending
// from lo to hi (lo = -R, hi = R; octant: lo = 0), and keep those in the neighbourhood.
// E.g. moore:d=2,r=1 is (-1,-1),(-1,0),(-1,1),(0,-1),(0,1),(1,-1),(1,0),(1,1).
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collrepro::iso {

using Offset = std::vector<int>;

// Thrown by Neighborhood::parse and the generators; the message names the bad token and
// the accepted syntax.
class NeighborhoodError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Budgets, checked by parse() and the generators (NeighborhoodError beyond them), so that
// parsing and every algorithm's plan stay small whatever the text says:
//   d <= kMaxNeighborhoodDims coordinates, s <= kMaxNeighbors offsets, generated kinds span
//   at most 2^20 candidate offsets ((2R+1)^D or (R+1)^D), and every list offset has
//   ||C||_1 <= kMaxOffsetNorm (2^30: offsets act modulo the torus dimensions, so larger ones
//   are never needed; the driver reduces c_j modulo p_j where the block sizes allow it).
inline constexpr int kMaxNeighborhoodDims = 16;
inline constexpr std::size_t kMaxNeighbors = 32768;  // moore:d=5,r=3 of seed 004 has 16806
inline constexpr long long kMaxOffsetNorm = 1LL << 30;

// The accepted syntax, for error messages and --help texts.
const char* neighborhood_syntax();

// Every vector of [lo, hi]^d in row order for which keep() is true (see ROW ORDER above).
std::vector<Offset> row_order(int d, int lo, int hi, const std::function<bool(const Offset&)>& keep);

int norm1(const Offset& c);     // ||C|| = sum_j |c_j|: torus hops of a block
int norm_inf(const Offset& c);  // max_j |c_j|
int nnz(const Offset& c);       // nonzero coordinates: hops of a block in the direct algorithms
bool is_zero(const Offset& c);
Offset axis_offset(int d, int j, int v);  // v e_j: the offset (0,..,v,..,0) of d coordinates

class Neighborhood {
 public:
  Neighborhood() = default;  // empty (d = 0, s = 0); not a valid argument to an algorithm

  static Neighborhood parse(std::string_view text);
  static Neighborhood moore(int d, int r);
  static Neighborhood von_neumann(int d, int r);
  static Neighborhood octant(int d, int r);
  static Neighborhood shells(int d, std::vector<int> radii);
  static Neighborhood list(std::vector<Offset> offsets);

  int dims() const { return d_; }
  std::size_t size() const { return offsets_.size(); }
  const Offset& operator[](std::size_t i) const { return offsets_[i]; }
  const std::vector<Offset>& offsets() const { return offsets_; }
  // "moore:d=3,r=1" etc.; parse(to_string()) == *this.
  std::string to_string() const;

  friend bool operator==(const Neighborhood& a, const Neighborhood& b) {
    return a.kind_ == b.kind_ && a.d_ == b.d_ && a.radii_ == b.radii_ && a.offsets_ == b.offsets_;
  }

 private:
  Neighborhood(std::string kind, int d, std::vector<int> radii, std::vector<Offset> offsets)
      : kind_(std::move(kind)), d_(d), radii_(std::move(radii)), offsets_(std::move(offsets)) {}

  std::string kind_;  // moore, vonneumann, octant, shells, list
  int d_ = 0;
  std::vector<int> radii_;  // r (one entry) or the shell radii; empty for list
  std::vector<Offset> offsets_;
};

}  // namespace collrepro::iso

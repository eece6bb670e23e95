// Shared-malloc folding of collbench's large buffers, and the simulated clock, for the SimGrid
// SMPI variant only (linked into collbench when COLLREPRO_SMPI is ON; see bench/sim/README.md).
//
// Why: a paper-scale point holds p * k bytes in every receiver (seed 000 at 256 ranks and 4 MiB:
// 128 receivers x 512 MiB = 64 GiB), more than this machine has. SMPI's shared malloc maps
// every large allocation onto the same few physical pages ("folding"), and SMPI then skips the
// payload copies of folded buffers, so such points simulate in little memory and time. The
// data in folded buffers is garbage: such points cannot be validated (the driver's
// validation_max_bytes keeps validation to small points; a folded point that is validated
// fails loudly, never silently).
//
// How, without touching the algorithms: every buffer of the harness and of the algorithms'
// scratch space is a collrepro::Buffer, which is the only caller of aligned_alloc in the
// project. The link step of the simulation variant wraps three libc calls of the project's
// own objects (GNU ld --wrap; SimGrid and the libraries are not affected):
//   aligned_alloc  allocations of at least smpi/auto-shared-malloc-thresh bytes (SimGrid's own
//                  knob, 0 = never) come from smpi_shared_malloc; smaller ones from libc;
//   free           returns folded blocks to smpi_shared_free, everything else to libc;
//   clock_gettime  reads SimGrid's simulated clock, so the driver's `monotonic` clock measures
//                  simulated time like `mpi-wtime` (the `tsc` clock cannot be simulated).
// No global state is shared between simulated ranks that matters: the folded-pointer set is
// only touched by the rank that allocates and frees a block (SMPI runs ranks one at a time).
//
// The fast path: collrepro::Buffer asks (set_shared_block_query) whether its block is folded,
// and does not fill a folded block (sentinel, send pattern). Those writes were most of a
// paper-scale simulation's time: every first write to a page of a folded mapping is a page
// fault on SimGrid's shared file, and the data written is garbage that nobody reads. Simulated
// times cannot depend on it (computation is not simulated). COLLREPRO_SIM_FILL_FOLDED=1
// (simrun --fill-folded) keeps the fills, to check that the fast path changes no result.
#include <smpi/smpi.h>
#include <smpi/smpi_helpers_internal.h>  // smpi_clock_gettime

#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <unordered_set>

#include <xbt/config.hpp>

#include "collrepro/buffers.hpp"
#include "run/memory_budget.hpp"

extern "C" {
void* __real_aligned_alloc(std::size_t alignment, std::size_t size);
void __real_free(void* p);
void* __wrap_aligned_alloc(std::size_t alignment, std::size_t size);
void __wrap_free(void* p);
int __wrap_clock_gettime(clockid_t clock, struct timespec* ts);
}

namespace {

std::unordered_set<void*>& folded() {
  static std::unordered_set<void*> set;  // immutable object identity; contents per block
  return set;
}

std::size_t fold_threshold() {
  const double t = simgrid::config::get_value<double>("smpi/auto-shared-malloc-thresh");
  return t > 0 ? static_cast<std::size_t>(t) : 0;
}

bool is_folded(const void* block) { return folded().count(const_cast<void*>(block)) != 0; }

bool fill_folded_requested() {
  const char* v = std::getenv("COLLREPRO_SIM_FILL_FOLDED");
  return v && std::string_view(v) == "1";
}

// Runs before main, so before the first Buffer is made and before the memory check.
const bool fast_path_installed = [] {
  if (!fill_folded_requested()) collrepro::set_shared_block_query(&is_folded);
  return collbench::set_fold_threshold_hook(&fold_threshold);
}();

}  // namespace

void* __wrap_aligned_alloc(std::size_t alignment, std::size_t size) {
  const std::size_t threshold = fold_threshold();
  if (threshold == 0 || size < threshold) return __real_aligned_alloc(alignment, size);
  void* p = smpi_shared_malloc(size, "collrepro-folded-buffer", 0);  // page aligned (mmap)
  if (p) folded().insert(p);
  return p;
}

void __wrap_free(void* p) {
  if (!p) return;
  if (auto it = folded().find(p); it != folded().end()) {
    folded().erase(it);
    smpi_shared_free(p);
    return;
  }
  __real_free(p);
}

int __wrap_clock_gettime(clockid_t clock, struct timespec* ts) { return smpi_clock_gettime(clock, ts); }

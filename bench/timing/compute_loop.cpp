#include "timing/compute_loop.hpp"

namespace collbench {

// Where every loop leaves its result, so that the compiler keeps the loop.
volatile double compute_loop_result = 0;

void compute_for(const Clock& clock, double seconds) {
  // A dependent chain of multiply-adds: each iteration waits for the one before (a few ns).
  constexpr int kBatch = 256;
  const double end = clock.now() + seconds;
  double x = 1.0;
  do {
    for (int i = 0; i < kBatch; ++i) x = x * 0.9999999 + 1e-9;
  } while (clock.now() < end);
  compute_loop_result = x;
}

}  // namespace collbench

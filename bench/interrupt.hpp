// Interrupts (SIGINT, SIGTERM: Ctrl-C, a Slurm time limit) without a signal handler and
// without global state: the signals are blocked in every thread (the watch is created
// before MPI_Init, so MPI's threads inherit the mask) and polled with sigtimedwait().
// poll() is cheap and local; the driver agrees on it collectively (MPI_Allreduce) between
// repetitions and between points, so that all ranks stop at the same place.
// After the first signal the mask is restored: a second Ctrl-C kills the process at once.
#pragma once

#include <csignal>

namespace collbench {

class InterruptWatch {
 public:
  InterruptWatch();   // blocks SIGINT and SIGTERM in the calling thread (call before MPI_Init)
  ~InterruptWatch();  // restores the previous mask
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // The first signal received so far (SIGINT or SIGTERM), or 0.
  int poll();
  int signal() const { return signal_; }

 private:
  sigset_t watched_{};
  sigset_t previous_{};
  int signal_ = 0;
  bool restored_ = false;
};

// 130 for SIGINT, 143 for SIGTERM (128 + signal number).
int exit_code_for_signal(int sig);

}  // namespace collbench

// Interrupts (SIGINT, SIGTERM: Ctrl-C, a Slurm time limit) without a signal handler and
// without global state: the signals are blocked in every thread (the watch is created
// before MPI_Init, so MPI's threads inherit the mask) and polled with sigtimedwait().
// poll() is cheap and local; the driver agrees on it collectively (MPI_Allreduce) between
// repetitions and between points, so that all ranks stop at the same place.
// The signals stay blocked after the first one: launchers (hydra, mpirun) send SIGTERM to the
// remaining ranks as soon as one rank exits with a non-zero code, and a rank still finishing
// its files must not die of it. A hung run is ended by the launcher's SIGKILL escalation (or
// SIGQUIT / SIGKILL by hand).
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
};

// 130 for SIGINT, 143 for SIGTERM (128 + signal number).
int exit_code_for_signal(int sig);

}  // namespace collbench

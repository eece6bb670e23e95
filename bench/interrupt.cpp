#include "interrupt.hpp"

#include <pthread.h>
#include <time.h>

namespace collbench {

InterruptWatch::InterruptWatch() {
  sigemptyset(&watched_);
  sigaddset(&watched_, SIGINT);
  sigaddset(&watched_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &watched_, &previous_);
}

InterruptWatch::~InterruptWatch() {
  if (!restored_) pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int InterruptWatch::poll() {
  if (signal_) return signal_;
  const timespec zero{0, 0};
  const int sig = sigtimedwait(&watched_, nullptr, &zero);
  if (sig == SIGINT || sig == SIGTERM) {
    signal_ = sig;
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    restored_ = true;
  }
  return signal_;
}

int exit_code_for_signal(int sig) { return 128 + sig; }

}  // namespace collbench

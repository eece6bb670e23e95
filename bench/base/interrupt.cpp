#include "base/interrupt.hpp"

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
  // Drop pending signals first: restoring the mask must not kill the process on its way out.
  const timespec zero{0, 0};
  while (sigtimedwait(&watched_, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int InterruptWatch::poll() {
  const timespec zero{0, 0};
  const int sig = sigtimedwait(&watched_, nullptr, &zero);
  if (!signal_ && (sig == SIGINT || sig == SIGTERM)) signal_ = sig;
  return signal_;
}

int exit_code_for_signal(int sig) { return 128 + sig; }

}  // namespace collbench

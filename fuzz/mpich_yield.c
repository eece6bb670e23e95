/* libcollrepro_mpich_yield: idle MPICH ranks give up the CPU, for the tests and the fuzzer on a small machine.

   Why. MPICH's ch4 device (Debian's MPICH 4.0.2 is ch4:ucx) waits by polling: a rank blocked in
   a call spins in its progress loop and never yields. The polls-before-yield setting that
   python/collrepro/mpienv.py gives oversubscribed MPICH launches changes nothing there (the
   measurement is in mpienv.py). With more ranks than cores every blocking step then costs a
   scheduler time slice: the spinning rank holds the core the rank it waits for needs. Later
   MPICH releases added MPIR_CVAR_CH4_PROGRESS_THROTTLE for such machines; 4.0.2 has nothing of
   the kind.

   What. Preloaded (LD_PRELOAD), it wraps UCX's ucp_worker_progress, which ch4:ucx calls as it polls
   (a turn of its progress loop): the real call runs, and after kYieldAfter turns in a row on which it
   progressed nothing, the calling thread calls sched_yield(). A rank that is waiting so lets
   another runnable rank of its core go on; with a core to itself, sched_yield() returns at once.
   Nothing else changes: no MPI call is wrapped, no message is touched, and a program whose MPI
   library never calls ucp_worker_progress (Open MPI over its own transports, MPICH on ch3 or
   libfabric) runs exactly as without it. Measured on the 2-core machine, MPICH 4.0.2, 5 ranks,
   300 MPI_Allgather of 1 KiB beside other CPU-bound work: 5.5 s without, 0.35 s with it.

   Where. The MPICH build's MPI tests get it in their environment (tests/CMakeLists.txt,
   COLLREPRO_MPI_TEST_ENV, built by tests/mpich_yield); the tests whose verdict depends on
   measured time (label timing) do not: they run MPICH as its users do (COLLREPRO_MPI_TIMING_ENV).
   The fuzzer builds it with each MPICH installation's C compiler and preloads it into every
   launch of that library (python/collrepro/fuzz/run.py): it touches no message and changes only
   when ready ranks run, which the fuzzer's arrival skew varies anyway; its reproducers run
   without it. Measurements never use it.
   With COLLREPRO_MPICH_YIELD_REPORT set, a process that polled says at exit how often it did and
   how often it yielded (the ctest mpi.mpich.yield.np3 checks that MPICH's ranks do). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* UCX's signature, without its headers: unsigned ucp_worker_progress(ucp_worker_h worker). */
typedef unsigned (*progress_fn)(void* worker);

enum { kYieldAfter = 16 }; /* idle turns of the progress loop before a yield */

static progress_fn real_progress(void) {
  static progress_fn real;
  progress_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
  if (!f) {
    f = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (!f) { /* only UCX calls reach here, so UCX is loaded: this cannot happen quietly */
      fprintf(stderr, "libcollrepro_mpich_yield: ucp_worker_progress not found after this library\n");
      abort();
    }
    __atomic_store_n(&real, f, __ATOMIC_RELEASE);
  }
  return f;
}

static unsigned long polls, yields; /* of this process, for the report */

unsigned ucp_worker_progress(void* worker) {
  static _Thread_local unsigned idle; /* turns in a row that progressed nothing */
  unsigned events = real_progress()(worker);
  __atomic_add_fetch(&polls, 1, __ATOMIC_RELAXED);
  if (events) {
    idle = 0;
  } else if (++idle >= kYieldAfter) {
    idle = 0;
    __atomic_add_fetch(&yields, 1, __ATOMIC_RELAXED);
    sched_yield();
  }
  return events;
}

__attribute__((destructor)) static void report(void) {
  const char* wanted = getenv("COLLREPRO_MPICH_YIELD_REPORT");
  if (wanted && *wanted && polls > 0)
    fprintf(stderr, "collrepro-mpich-yield: %lu polls, %lu yields\n", polls, yields);
}

/* An ordinary C MPI program (not collbench) for the interposition library's check of the
   started neighbourhood calls (check_library.py started_neighbor). On a periodic one-dimensional
   Cartesian communicator of the world (an isomorphic neighbourhood: offsets -1 and +1), for
   MPI_Neighbor_alltoall, MPI_Neighbor_allgather and MPI_Neighbor_alltoallw at blocks of 1 and
   5000 bytes, it makes

     - nonblocking calls (MPI_Ineighbor_*), each completed by MPI_Wait, two of them outstanding
       at once on separate buffers;
     - persistent calls, where the build found them (MPI_Neighbor_*_init, or Open MPI 4.1's
       MPIX_ from mpi-ext.h: COLLREPRO_CLIENT_MPIX): one init, then STARTS starts (MPI_Start +
       MPI_Wait) with the send buffer rewritten before every one, then MPI_Request_free.

   After every completion the receive buffer (and the guard bytes around it) must equal what the
   MPI library's own blocking PMPI_Neighbor_* gives for the same send buffer. Under LD_PRELOAD of
   the library, the requests it owns must all be gone at the end.

   Prints, on world rank 0, the calls it made over all processes (the check compares them with
   the library's report) and "started_neighbor_client: N completions equal"; exits 1 at the first
   difference. Usage: started_neighbor_client [STARTS] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if COLLREPRO_CLIENT_MPIX
#include <mpi-ext.h>
#define NEIGHBOR_INIT(name) MPIX_Neighbor_##name##_init
#define INIT_PREFIX "MPIX_"
#elif COLLREPRO_CLIENT_MPI
#define NEIGHBOR_INIT(name) MPI_Neighbor_##name##_init
#define INIT_PREFIX "MPI_"
#endif

enum { GUARD = 32, NEIGHBORS = 2 };
enum Collective { ALLTOALL, ALLGATHER, ALLTOALLW, COLLECTIVES };
static const char* const NAMES[COLLECTIVES] = {"neighbor-alltoall", "neighbor-allgather", "neighbor-alltoallw"};

static int world_rank;
static long equal;
/* Process-calls made, summed at the end, per collective: nonblocking calls, persistent inits, starts. */
static long nonblocking_made[COLLECTIVES], inits_made[COLLECTIVES], starts_made[COLLECTIVES];

/* One call's buffers: the send blocks (alltoall(w): one per neighbour; allgather: one) and the
   receive blocks, with guard bytes around the receive side. */
struct Call {
  enum Collective c;
  MPI_Comm comm;
  int k;
  unsigned char *send, *recv;
  int counts[NEIGHBORS];
  MPI_Aint displs[NEIGHBORS];
  MPI_Datatype types[NEIGHBORS];
};

static size_t send_bytes(const struct Call* x) { return (size_t)x->k * (x->c == ALLGATHER ? 1 : NEIGHBORS); }
static size_t recv_bytes(const struct Call* x) { return (size_t)x->k * NEIGHBORS + 2 * GUARD; }

static void setup(struct Call* x, enum Collective c, MPI_Comm comm, int k) {
  x->c = c;
  x->comm = comm;
  x->k = k;
  x->send = malloc(send_bytes(x) + 1);
  x->recv = malloc(recv_bytes(x));
  for (int j = 0; j < NEIGHBORS; ++j) {
    x->counts[j] = k;
    x->displs[j] = (MPI_Aint)j * k;
    x->types[j] = MPI_BYTE;
  }
}

static void release(struct Call* x) {
  free(x->send);
  free(x->recv);
}

static void fill(struct Call* x, int salt) {
  for (size_t i = 0; i < send_bytes(x); ++i)
    x->send[i] = (unsigned char)((i * 131 + (size_t)salt * 17 + (size_t)world_rank * 7 + 5) % 251);
  memset(x->recv, 0xA5, recv_bytes(x));
}

static void fail(const char* what) {
  fprintf(stderr, "started_neighbor_client: rank %d: %s\n", world_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The MPI library's own blocking call on x's send data, into `into` (guards included). */
static void native(const struct Call* x, unsigned char* into) {
  unsigned char* r = into + GUARD;
  memset(into, 0xA5, recv_bytes(x));
  if (x->c == ALLTOALL)
    PMPI_Neighbor_alltoall(x->send, x->k, MPI_BYTE, r, x->k, MPI_BYTE, x->comm);
  else if (x->c == ALLGATHER)
    PMPI_Neighbor_allgather(x->send, x->k, MPI_BYTE, r, x->k, MPI_BYTE, x->comm);
  else
    PMPI_Neighbor_alltoallw(x->send, x->counts, x->displs, x->types, r, x->counts, x->displs, x->types, x->comm);
}

static void expect_native(const struct Call* x, const char* form, int start) {
  unsigned char* want = malloc(recv_bytes(x));
  native(x, want);
  int same = memcmp(want, x->recv, recv_bytes(x)) == 0, all = 0;
  PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!same) {
    size_t i = 0;
    while (want[i] == x->recv[i]) ++i;
    fprintf(stderr, "started_neighbor_client: rank %d: %s %s k=%d, start %d: byte %ld differs: %d (library) vs %d "
            "(native)\n", world_rank, form, NAMES[x->c], x->k, start, (long)i - GUARD, x->recv[i], want[i]);
  }
  free(want);
  if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  ++equal;
}

static void post(struct Call* x, MPI_Request* r) {
  unsigned char* into = x->recv + GUARD;
  if (x->c == ALLTOALL)
    MPI_Ineighbor_alltoall(x->send, x->k, MPI_BYTE, into, x->k, MPI_BYTE, x->comm, r);
  else if (x->c == ALLGATHER)
    MPI_Ineighbor_allgather(x->send, x->k, MPI_BYTE, into, x->k, MPI_BYTE, x->comm, r);
  else
    MPI_Ineighbor_alltoallw(x->send, x->counts, x->displs, x->types, into, x->counts, x->displs, x->types, x->comm, r);
}

/* Three rounds: one call and its wait; two outstanding calls on separate buffers, completed by
   MPI_Waitall; one call completed by polling MPI_Test. */
static void nonblocking(enum Collective c, MPI_Comm comm, int k) {
  struct Call x[2];
  setup(&x[0], c, comm, k);
  setup(&x[1], c, comm, k);
  MPI_Request r[2];
  MPI_Status st[2];
  for (int round = 0; round < 3; ++round) {
    const int calls = round == 1 ? 2 : 1;
    for (int i = 0; i < calls; ++i) {
      fill(&x[i], 50 + 4 * round + i);
      post(&x[i], &r[i]);
    }
    if (round == 2)
      for (int flag = 0; !flag;) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    else
      MPI_Waitall(calls, r, st);
    for (int i = 0; i < calls; ++i) {
      if (r[i] != MPI_REQUEST_NULL) fail("a completed nonblocking request is still set");
      expect_native(&x[i], "nonblocking", round);
    }
    nonblocking_made[c] += calls;
  }
  release(&x[0]);
  release(&x[1]);
}

#ifdef NEIGHBOR_INIT
/* One init, `starts` starts with new send data each, then MPI_Request_free. */
static void persistent(enum Collective c, MPI_Comm comm, int k, int starts) {
  struct Call x;
  setup(&x, c, comm, k);
  fill(&x, 0);
  MPI_Request r;
  unsigned char* into = x.recv + GUARD;
  if (c == ALLTOALL)
    NEIGHBOR_INIT(alltoall)(x.send, k, MPI_BYTE, into, k, MPI_BYTE, comm, MPI_INFO_NULL, &r);
  else if (c == ALLGATHER)
    NEIGHBOR_INIT(allgather)(x.send, k, MPI_BYTE, into, k, MPI_BYTE, comm, MPI_INFO_NULL, &r);
  else
    NEIGHBOR_INIT(alltoallw)(x.send, x.counts, x.displs, x.types, into, x.counts, x.displs, x.types, comm,
                             MPI_INFO_NULL, &r);
  for (int n = 0; n < starts; ++n) {
    fill(&x, n + 1); /* new data at every start: a stale copy of the first fails */
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect_native(&x, "persistent", n);
  }
  MPI_Request_free(&r);
  if (r != MPI_REQUEST_NULL) fail("MPI_Request_free left a request set");
  inits_made[c] += 1;
  starts_made[c] += starts;
  release(&x);
}
#endif

int main(int argc, char** argv) {
  const int starts = argc > 1 ? atoi(argv[1]) : 5;
  int size, periodic = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3) fail("needs 3 or more processes (a ring whose two neighbours differ)");
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
  const int sizes[] = {1, 5000};
  for (int c = 0; c < COLLECTIVES; ++c)
    for (int i = 0; i < 2; ++i) {
      nonblocking((enum Collective)c, ring, sizes[i]);
#ifdef NEIGHBOR_INIT
      persistent((enum Collective)c, ring, sizes[i], starts);
#endif
    }
  MPI_Comm_free(&ring);
  /* per collective: nonblocking, inits, starts; then the requests the library still owns (-1
     without it) and the equal completions */
  long mine[3 * COLLECTIVES + 2], total[3 * COLLECTIVES + 2];
  for (int c = 0; c < COLLECTIVES; ++c) {
    mine[3 * c] = nonblocking_made[c];
    mine[3 * c + 1] = inits_made[c];
    mine[3 * c + 2] = starts_made[c];
  }
  mine[3 * COLLECTIVES] = -1;
  mine[3 * COLLECTIVES + 1] = equal;
  long (*owned)(void) = NULL;
  *(void**)&owned = dlsym(RTLD_DEFAULT, "collrepro_pmpi_owned_requests"); /* POSIX's way to a function */
  if (owned) mine[3 * COLLECTIVES] = owned();
  PMPI_Reduce(mine, total, 3 * COLLECTIVES + 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
#ifdef NEIGHBOR_INIT
    printf("started_neighbor_client: persistent with " INIT_PREFIX "Neighbor_*_init\n");
#else
    printf("started_neighbor_client: no persistent neighbourhood calls in this MPI build\n");
#endif
    for (int c = 0; c < COLLECTIVES; ++c)
      printf("started_neighbor_client: made %s nonblocking %ld inits %ld starts %ld\n", NAMES[c], total[3 * c],
             total[3 * c + 1], total[3 * c + 2]);
    if (owned) printf("started_neighbor_client: owned requests left %ld\n", total[3 * COLLECTIVES]);
    printf("started_neighbor_client: %ld completions equal\n", total[3 * COLLECTIVES + 1]);
  }
  MPI_Finalize();
  return 0;
}

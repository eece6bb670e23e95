/* An ordinary C MPI program (not collbench) for the interposition library's check of the
   Allgatherv forms (check_library.py startedv): on intercommunicators between two groups of the
   world (every split) it makes

     - nonblocking Allgathervs: MPI_Iallgatherv + MPI_Wait; OUTSTANDING outstanding calls of one
       shape completed by MPI_Wait from the last to the first (the processes' rounds then run in
       another order than the calls were made); one polled with MPI_Test;
     - persistent Allgathervs: one init (MPI_Allgatherv_init, or Open MPI 4.1's
       MPIX_Allgatherv_init from mpi-ext.h: whichever the build found, COLLREPRO_CLIENT_MPIX),
       then STARTS starts with the send buffer rewritten before each, then MPI_Request_free;

   on shapes where the process of group rank i on side s sends ((i + s + t) mod 3) x unit bytes
   (so some send nothing; unit 1, 333 and 20000 bytes), one side or both, with the remote blocks
   laid out contiguously, with gaps, or in reverse order, and one shape with a strided send
   datatype. After every completion the receive buffer (and the guard bytes around it) must equal
   what the MPI library's own blocking PMPI_Allgatherv gives for the same send buffer. Under
   LD_PRELOAD of the library, the requests it owns must all be gone at the end.

   Prints, on world rank 0, the calls it made over all processes and
   "startedv_client: N completions equal"; exits 1 at the first difference.
   Usage: startedv_client [STARTS] [--no-full-persistent] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if COLLREPRO_CLIENT_MPIX
#include <mpi-ext.h>
#define ALLGATHERV_INIT MPIX_Allgatherv_init
#define ALLGATHERV_INIT_NAME "MPIX_Allgatherv_init"
#elif COLLREPRO_CLIENT_MPI
#define ALLGATHERV_INIT MPI_Allgatherv_init
#define ALLGATHERV_INIT_NAME "MPI_Allgatherv_init"
#endif

enum { GUARD = 32, OUTSTANDING = 5 /* one more than the library's lanes (context.hpp) */ };

static int world_rank, world_size;
static long equal;
static long made[3]; /* process-calls: [0] persistent inits, [1] their starts, [2] nonblocking calls */

/* One Allgatherv shape on `inter`, as this process sees it. */
struct Shape {
  MPI_Comm inter;
  int side, rank, remote;
  int scount, half;
  MPI_Datatype stype;
  size_t span;    /* bytes the send buffer spans */
  int* rcounts;   /* remote blocks, bytes */
  int* rdispls;
  size_t rbytes;  /* the receive buffer without guards */
  char what[96];
};

static int block_of(int side, int rank, int t, int unit, int senders) {
  if (senders != 2 && senders != side) return 0;
  return ((rank + side + t) % 3) * unit;
}

static void fill(unsigned char* buf, size_t n, int salt) {
  for (size_t i = 0; i < n; ++i)
    buf[i] = (unsigned char)((i * 131 + (size_t)salt * 17 + (size_t)world_rank * 7 + 5) % 251);
}

static void expect_native(const struct Shape* s, const unsigned char* send, const unsigned char* got, const char* form,
                          int at) {
  const size_t n = s->rbytes + 2 * GUARD;
  unsigned char* want = malloc(n);
  memset(want, 0xA5, n);
  PMPI_Allgatherv(send, s->scount, s->stype, want + GUARD, s->rcounts, s->rdispls, MPI_BYTE, s->inter);
  int same = memcmp(want, got, n) == 0, all = 0;
  PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!same) {
    size_t i = 0;
    while (want[i] == got[i]) ++i;
    fprintf(stderr, "startedv_client: rank %d: %s %s, at %d: byte %ld differs: %d (library) vs %d (native)\n",
            world_rank, form, s->what, at, (long)i - GUARD, got[i], want[i]);
  }
  free(want);
  if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  ++equal;
}

static unsigned char* recv_buffer(const struct Shape* s) {
  unsigned char* r = malloc(s->rbytes + 2 * GUARD);
  memset(r, 0xA5, s->rbytes + 2 * GUARD);
  return r;
}

#ifdef ALLGATHERV_INIT
static void persistent(const struct Shape* s, int starts) {
  unsigned char* send = malloc(s->span + 1);
  unsigned char* recv = recv_buffer(s);
  MPI_Request req;
  fill(send, s->span, 0);
  ALLGATHERV_INIT(send, s->scount, s->stype, recv + GUARD, s->rcounts, s->rdispls, MPI_BYTE, s->inter, MPI_INFO_NULL,
                  &req);
  for (int n = 0; n < starts; ++n) {
    fill(send, s->span, n + 1); /* new data at every start: a stale copy of the first fails */
    memset(recv, 0xA5, s->rbytes + 2 * GUARD);
    MPI_Start(&req);
    if (n % 2)
      for (int flag = 0; !flag;) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    else
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    expect_native(s, send, recv, "persistent", n);
  }
  MPI_Request_free(&req);
  if (req != MPI_REQUEST_NULL) {
    fprintf(stderr, "startedv_client: MPI_Request_free left the request set\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  made[0] += 1;
  made[1] += starts;
  free(send);
  free(recv);
}
#endif

/* One call + MPI_Wait; OUTSTANDING calls completed last to first; one polled with MPI_Test. */
static void nonblocking(const struct Shape* s) {
  unsigned char *send[OUTSTANDING], *recv[OUTSTANDING];
  MPI_Request req[OUTSTANDING];
  for (int c = 0; c < OUTSTANDING; ++c) {
    send[c] = malloc(s->span + 1);
    recv[c] = recv_buffer(s);
  }
  for (int round = 0; round < 3; ++round) {
    const int calls = round == 1 ? OUTSTANDING : 1;
    for (int c = 0; c < calls; ++c) {
      fill(send[c], s->span, 100 + 8 * round + c);
      memset(recv[c], 0xA5, s->rbytes + 2 * GUARD);
      MPI_Iallgatherv(send[c], s->scount, s->stype, recv[c] + GUARD, s->rcounts, s->rdispls, MPI_BYTE, s->inter,
                      &req[c]);
    }
    if (round == 2)
      for (int flag = 0; !flag;) MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
    else
      for (int c = calls - 1; c >= 0; --c) MPI_Wait(&req[c], MPI_STATUS_IGNORE);
    for (int c = 0; c < calls; ++c) expect_native(s, send[c], recv[c], "nonblocking", round * 10 + c);
    made[2] += calls;
  }
  for (int c = 0; c < OUTSTANDING; ++c) {
    free(send[c]);
    free(recv[c]);
  }
}

/* The remote blocks of shape (t, unit, senders) in layout `lay`: 0 contiguous, 1 gapped, 2 reversed. */
static void lay_out(struct Shape* s, int t, int unit, int senders, int lay) {
  size_t at = 0;
  for (int k = 0; k < s->remote; ++k) {
    const int j = lay == 2 ? s->remote - 1 - k : k;
    s->rcounts[j] = block_of(1 - s->side, j, t, unit, senders);
    s->rdispls[j] = (int)at;
    at += (size_t)s->rcounts[j] + (lay == 1 ? 8 + (size_t)j : 0);
  }
  s->rbytes = at + 1;
}

static void split(int p, int starts, int full_persistent) {
  const int side = world_rank < p ? 0 : 1;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, side, world_rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? p : 0, 78, &inter);
  MPI_Comm_free(&local);
  struct Shape s;
  memset(&s, 0, sizeof s);
  s.inter = inter;
  s.side = side;
  MPI_Comm_rank(inter, &s.rank);
  MPI_Comm_remote_size(inter, &s.remote);
  s.rcounts = malloc(sizeof(int) * (size_t)s.remote);
  s.rdispls = malloc(sizeof(int) * (size_t)s.remote);
  const int units[] = {1, 333, 20000};
  for (int u = 0; u < 3; ++u)
    for (int senders = 0; senders < 3; ++senders) { /* 0: A sends, 1: B sends, 2: both */
      const int t = u + senders, lay = (u + senders) % 3;
      s.half = senders < 2;
      s.scount = block_of(side, s.rank, t, units[u], senders);
      s.stype = MPI_BYTE;
      s.span = (size_t)s.scount;
      lay_out(&s, t, units[u], senders, lay);
      snprintf(s.what, sizeof s.what, "p=%d q=%d unit=%d %s, %s blocks", p, world_size - p, units[u],
               senders == 0 ? "A sends" : senders == 1 ? "B sends" : "full duplex",
               lay == 0 ? "contiguous" : lay == 1 ? "gapped" : "reversed");
#ifdef ALLGATHERV_INIT
      if (s.half || full_persistent) persistent(&s, starts);
#endif
      nonblocking(&s);
    }
  { /* both send ((i + s) mod 3) x 1000 bytes as every other byte of a buffer: staged */
    MPI_Datatype strided;
    MPI_Type_vector(1000, 1, 2, MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    s.half = 0;
    s.scount = (s.rank + side) % 3;
    s.stype = strided;
    s.span = s.scount ? (size_t)s.scount * 2000 : 0;
    lay_out(&s, 0, 1000, 2, 1);
    snprintf(s.what, sizeof s.what, "p=%d q=%d strided send, gapped blocks", p, world_size - p);
#ifdef ALLGATHERV_INIT
    if (full_persistent) persistent(&s, starts);
#endif
    nonblocking(&s);
    MPI_Type_free(&strided);
  }
  free(s.rcounts);
  free(s.rdispls);
  MPI_Comm_free(&inter);
}

int main(int argc, char** argv) {
  int starts = 3, full_persistent = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--no-full-persistent") == 0)
      full_persistent = 0;
    else
      starts = atoi(argv[i]);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  for (int p = 1; p < world_size; ++p) split(p, starts, full_persistent);
  long mine[5] = {made[0], made[1], made[2], -1, equal}, total[5];
  long (*owned)(void) = NULL;
  *(void**)&owned = dlsym(RTLD_DEFAULT, "collrepro_pmpi_owned_requests");
  if (owned) mine[3] = owned();
  PMPI_Reduce(mine, total, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
#ifdef ALLGATHERV_INIT
    printf("startedv_client: persistent with %s\n", ALLGATHERV_INIT_NAME);
#else
    printf("startedv_client: no persistent Allgatherv in this MPI build\n");
#endif
    printf("startedv_client: made persistent %ld starts %ld nonblocking %ld\n", total[0], total[1], total[2]);
    if (owned) printf("startedv_client: owned requests left %ld\n", total[3]);
    printf("startedv_client: %ld completions equal\n", total[4]);
  }
  MPI_Finalize();
  return 0;
}

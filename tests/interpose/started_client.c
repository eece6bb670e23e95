/* An ordinary C MPI program (not collbench) for the interposition library's started-call check
   (check_library.py started): on intercommunicators between two groups of the world (every split),
   it makes

     - persistent Allgathers: one init (MPI_Allgather_init, or Open MPI 4.1's MPIX_Allgather_init
       from mpi-ext.h: whichever the build found, COLLREPRO_CLIENT_MPIX), then STARTS starts with
       the send buffer rewritten before every one: MPI_Start + MPI_Wait, then MPI_Startall
       beside a persistent message to itself (MPI_COMM_SELF), completed by MPI_Waitall,
       MPI_Waitany, MPI_Testsome, MPI_Testall and MPI_Wait in turn; then MPI_Request_free;
     - nonblocking Allgathers: MPI_Iallgather + MPI_Wait, five outstanding ones of the same shape
       (the fifth reuses the library's busy runner of the first) completed by one MPI_Waitall,
       one completed by polling MPI_Test, then one beside a message to itself per request call
       (Waitany, Testsome, Testall, Waitall, Wait);

   on half-duplex shapes (one group sends k bytes, the other none; k = 0, 1, 70000, and one with a
   strided send datatype) and, unless --no-full-persistent, full-duplex ones. After every
   completion the receive buffer (and the guard bytes around it) must equal what the MPI
   library's own blocking PMPI_Allgather gives for the same send buffer. Under LD_PRELOAD of the
   library, the requests it owns must all be gone at the end (collrepro_pmpi_owned_requests()).

   Prints, on world rank 0, the calls it made over all processes (the check compares them with
   the library's report) and "started_client: N completions equal"; exits 1 at the first
   difference. Usage: started_client [STARTS] [--no-full-persistent] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if COLLREPRO_CLIENT_MPIX
#include <mpi-ext.h>
#define ALLGATHER_INIT MPIX_Allgather_init
#define ALLGATHER_INIT_NAME "MPIX_Allgather_init"
#elif COLLREPRO_CLIENT_MPI
#define ALLGATHER_INIT MPI_Allgather_init
#define ALLGATHER_INIT_NAME "MPI_Allgather_init"
#endif

enum { GUARD = 32, OUTSTANDING = 5 /* one more than the library's runners per shape (context.hpp) */ };

static int world_rank, world_size;
static long equal;
/* Process-calls made, summed at the end: [0] half-duplex persistent inits, [1] their starts,
   [2] full-duplex persistent inits, [3] half-duplex nonblocking calls, [4] full-duplex ones. */
static long made[5];

/* One Allgather shape on `inter`: this process's send block (`scount` of `stype`, laid out in
   `span` bytes) and the remote blocks of `theirs` bytes. */
struct Shape {
  MPI_Comm inter;
  int remote, scount, theirs, half;
  MPI_Datatype stype;
  size_t span;
  char what[96];
};

static void fill(unsigned char* buf, size_t n, int salt) {
  for (size_t i = 0; i < n; ++i)
    buf[i] = (unsigned char)((i * 131 + (size_t)salt * 17 + (size_t)world_rank * 7 + 5) % 251);
}

static size_t recv_bytes(const struct Shape* s) { return (size_t)s->theirs * (size_t)s->remote + 2 * GUARD; }

/* The receive buffer after a completion must equal the MPI library's blocking result. */
static void expect_native(const struct Shape* s, const unsigned char* send, const unsigned char* got, const char* form,
                          int start) {
  unsigned char* want = malloc(recv_bytes(s));
  memset(want, 0xA5, recv_bytes(s));
  PMPI_Allgather(send, s->scount, s->stype, want + GUARD, s->theirs, MPI_BYTE, s->inter);
  int same = memcmp(want, got, recv_bytes(s)) == 0, all = 0;
  PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!same) {
    size_t i = 0;
    while (want[i] == got[i]) ++i;
    fprintf(stderr, "started_client: rank %d: %s %s, start %d: byte %ld differs: %d (library) vs %d (native)\n",
            world_rank, form, s->what, start, (long)i - GUARD, got[i], want[i]);
  }
  free(want);
  if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  ++equal;
}

static void fail(const char* what) {
  fprintf(stderr, "started_client: rank %d: %s\n", world_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A message to itself on MPI_COMM_SELF whose requests share the array with the Allgather's:
   the library's requests and the MPI library's mixed in one call. */
struct Self {
  int out, in;
};

/* Completes the `n` requests of `all` by one of the request calls (`how`): 0 MPI_Waitall (the
   receive's status, when there is one, must name its source and tag), 1 MPI_Waitany until none
   is left, 2 MPI_Testsome polled, 3 MPI_Testall polled, 4 MPI_Wait on each in turn. */
static void complete(MPI_Request* all, int n, int how) {
  MPI_Status st[OUTSTANDING];
  int index, flag = 0, outcount, indices[OUTSTANDING], done = 0;
  switch (how) {
    case 0:
      MPI_Waitall(n, all, st);
      if (n == 3 && (st[2].MPI_SOURCE != 0 || st[2].MPI_TAG != 5)) fail("MPI_Waitall lost the receive's status");
      break;
    case 1:
      do MPI_Waitany(n, all, &index, st);
      while (index != MPI_UNDEFINED);
      break;
    case 2:
      while (done < n) {
        MPI_Testsome(n, all, &outcount, indices, st);
        if (outcount == MPI_UNDEFINED) fail("MPI_Testsome found nothing active before every request completed");
        done += outcount;
      }
      break;
    case 3:
      while (!flag) MPI_Testall(n, all, &flag, st);
      break;
    default:
      for (int i = 0; i < n; ++i) MPI_Wait(&all[i], &st[0]);
  }
}

static void expect_self(const struct Self* m) {
  if (m->in != m->out) fail("the message to itself did not arrive beside the Allgather");
}

#ifdef ALLGATHER_INIT
/* One init, `starts` starts, each with new send data, completed by each request call in turn. */
static void persistent(const struct Shape* s, int starts) {
  unsigned char* send = malloc(s->span + 1);
  unsigned char* recv = malloc(recv_bytes(s));
  struct Self m = {0, -1};
  MPI_Request all[3];
  fill(send, s->span, 0);
  ALLGATHER_INIT(send, s->scount, s->stype, recv + GUARD, s->theirs, MPI_BYTE, s->inter, MPI_INFO_NULL, &all[0]);
  MPI_Send_init(&m.out, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &all[1]);
  MPI_Recv_init(&m.in, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &all[2]);
  for (int n = 0; n < starts; ++n) {
    fill(send, s->span, n + 1); /* new data at every start: a stale copy of the first fails */
    memset(recv, 0xA5, recv_bytes(s));
    m.out = 1000 + n;
    m.in = -1;
    if (n == 0) { /* the Allgather alone: MPI_Start and MPI_Wait */
      MPI_Start(&all[0]);
      MPI_Wait(&all[0], MPI_STATUS_IGNORE);
    } else {
      MPI_Startall(3, all);
      complete(all, 3, n % 5);
      expect_self(&m);
    }
    expect_native(s, send, recv, "persistent", n);
  }
  for (int i = 0; i < 3; ++i) {
    MPI_Request_free(&all[i]);
    if (all[i] != MPI_REQUEST_NULL) fail("MPI_Request_free left a request set");
  }
  made[s->half ? 0 : 2] += 1;
  if (s->half) made[1] += starts;
  free(send);
  free(recv);
}
#endif

/* MPI_Iallgather, completed by every request call: one with MPI_Wait, OUTSTANDING outstanding
   ones of one shape with one MPI_Waitall, one polled with MPI_Test, then one beside a message to
   itself per request call. */
static void nonblocking(const struct Shape* s) {
  unsigned char *send[OUTSTANDING], *recv[OUTSTANDING];
  for (int c = 0; c < OUTSTANDING; ++c) {
    send[c] = malloc(s->span + 1);
    recv[c] = malloc(recv_bytes(s));
  }
  MPI_Request all[OUTSTANDING];
  for (int round = 0; round < 8; ++round) {
    const int calls = round == 1 ? OUTSTANDING : 1, mixed = round >= 3;
    struct Self m = {round, -1};
    for (int c = 0; c < calls; ++c) {
      fill(send[c], s->span, 100 + 8 * round + c);
      memset(recv[c], 0xA5, recv_bytes(s));
      MPI_Iallgather(send[c], s->scount, s->stype, recv[c] + GUARD, s->theirs, MPI_BYTE, s->inter, &all[c]);
    }
    if (mixed) {
      MPI_Irecv(&m.in, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &all[2]);
      MPI_Isend(&m.out, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &all[1]);
      complete(all, 3, round - 3);
      expect_self(&m);
    } else if (round == 2) {
      for (int flag = 0; !flag;) MPI_Test(&all[0], &flag, MPI_STATUS_IGNORE);
    } else {
      complete(all, calls, round == 0 ? 4 : 0);
    }
    for (int c = 0; c < (mixed ? 3 : calls); ++c)
      if (all[c] != MPI_REQUEST_NULL) fail("a completed nonblocking request is still set");
    for (int c = 0; c < calls; ++c) expect_native(s, send[c], recv[c], "nonblocking", round);
    made[s->half ? 3 : 4] += calls;
  }
  for (int c = 0; c < OUTSTANDING; ++c) {
    free(send[c]);
    free(recv[c]);
  }
}

/* Every shape on the split of the world at p: both half-duplex orientations (and, unless
   `half_only`, full duplex) at each block size, and one strided send datatype. */
static void split(int p, int starts, int full_persistent) {
  const int side = world_rank < p ? 0 : 1;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, side, world_rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? p : 0, 77, &inter);
  MPI_Comm_free(&local);
  struct Shape s = {inter, 0, 0, 0, 0, MPI_BYTE, 0, ""};
  MPI_Comm_remote_size(inter, &s.remote);
  const int sizes[] = {0, 1, 70000};
  for (int i = 0; i < 3; ++i)
    for (int mode = 0; mode < 3; ++mode) { /* 0: A sends, 1: B sends, 2: both */
      const int k = sizes[i];
      s.half = mode < 2 || k == 0; /* nobody sending is half duplex too, as the rules' duplex= sees it */
      s.scount = mode == 2 || mode == side ? k : 0;
      s.theirs = mode == 2 || mode == 1 - side ? k : 0;
      s.stype = MPI_BYTE;
      s.span = (size_t)s.scount;
      snprintf(s.what, sizeof s.what, "p=%d q=%d k=%d %s", p, world_size - p, k,
               mode == 0 ? "A sends" : mode == 1 ? "B sends" : "full duplex");
#ifdef ALLGATHER_INIT
      if (s.half || full_persistent) persistent(&s, starts);
#endif
      nonblocking(&s);
    }
  { /* A sends 4096 bytes as every other byte of an 8 KiB buffer: staged (packed at every start) */
    MPI_Datatype strided;
    MPI_Type_vector(4096, 1, 2, MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    s.half = 1;
    s.scount = side == 0 ? 1 : 0;
    s.stype = strided;
    s.span = side == 0 ? 8192 : 0;
    s.theirs = side == 1 ? 4096 : 0;
    snprintf(s.what, sizeof s.what, "p=%d q=%d strided send, A sends", p, world_size - p);
#ifdef ALLGATHER_INIT
    persistent(&s, starts);
#endif
    nonblocking(&s);
    MPI_Type_free(&strided);
  }
  MPI_Comm_free(&inter);
}

int main(int argc, char** argv) {
  int starts = 6, full_persistent = 1;
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
  /* made[0..4], the requests the library still owns (-1 without it), the equal completions */
  long mine[7] = {made[0], made[1], made[2], made[3], made[4], -1, equal}, total[7];
  long (*owned)(void) = NULL;
  *(void**)&owned = dlsym(RTLD_DEFAULT, "collrepro_pmpi_owned_requests"); /* POSIX's way to a function */
  if (owned) mine[5] = owned();
  PMPI_Reduce(mine, total, 7, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
#ifdef ALLGATHER_INIT
    printf("started_client: persistent with %s\n", ALLGATHER_INIT_NAME);
#else
    printf("started_client: no persistent Allgather in this MPI build\n");
#endif
    printf("started_client: made half-persistent %ld starts %ld full-persistent %ld half-nonblocking %ld "
           "full-nonblocking %ld\n",
           total[0], total[1], total[2], total[3], total[4]);
    if (owned) printf("started_client: owned requests left %ld\n", total[5]);
    printf("started_client: %ld completions equal\n", total[6]);
  }
  MPI_Finalize();
  return 0;
}

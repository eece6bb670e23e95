/* collrepro fuzz finding mpich-4.0.2-native-allgather-blocking-error-c5356: error on mpich-4.0.2
   (4.0.2), through the MPI library's own call (no interposition).
   np 5 (1:4) allgather blocking x1 struct->struct split/block
   What it printed: intercase: world rank 0: the call of call 0 returned 5835278 (Message truncated, error stack: | intercase: MISMATCH world rank 0 (side 0) call 0: byte 10984 of the receive buffer is 0xee, want 0x40 | intercase: MISMATCH world rank 0 (side 0) call 0: byte 10985 of the receive buffer is 0xee, want 0x3

   Build and run (MPICH: mpiexec, and -genv NAME VALUE for -x NAME=VALUE):
     mpicc -o repro repro.c
     mpirun -n 5 ./repro
   Exit 0 and 'intercase: ok' when the library is right; the case's words are explained
   below, in the program's own header. */
#define FUZZ_CASE "coll=allgather form=blocking calls=1 make=split layout=block p=1 counts=6/217,217,217,217 disp=contig stype=struct rtype=struct skew=-1:0 seed=548671879"
/* intercase: one case of collrepro's differential fuzzer for inter-group collectives
   (`collrepro-py fuzz`, python/collrepro/fuzz/). An ordinary C MPI program: it makes an
   intercommunicator as the case says, calls MPI_Allgather or MPI_Allgatherv on it in one call
   form, and checks every byte of every receive buffer against a reference it computes from the
   case alone, without MPI. Run plainly it tests the MPI library's own call; run under
   LD_PRELOAD=libcollrepro_pmpi.so with COLLREPRO_PMPI_FORCE=NAME it tests the project's
   algorithm NAME through the same door a user's program takes.

   The case is one line of KEY=VALUE words (argv[1], or FUZZ_CASE compiled in: a reproducer is
   this file with the case defined, see python/collrepro/fuzz/reproducer.py):

     coll=allgather|allgatherv
     form=blocking|nonblocking|persistent
     calls=N        blocking: N calls in a row; nonblocking: N calls outstanding at once, waited
                    from the last to the first; persistent: one request started N times, the
                    send buffer rewritten and the receive buffer cleared before every start
     make=split|dup|merge   the intercommunicator: MPI_Intercomm_create over MPI_COMM_WORLD split
                    by side; the same over a dup of the world; or that, merged
                    (MPI_Intercomm_merge), split again and made into an intercommunicator again
     layout=block|reverse|interleave   which world ranks form side 0 (p of them): the first p,
                    the last p, or alternate ranks until one side is full
     p=P            the size of side 0 (side 1 has the other world ranks)
     counts=A,B,../C,D,..   elements of stype each process of side 0 / side 1 sends, by group
                    rank (allgather: one value per side, repeated)
     disp=contig|gap|reverse   allgatherv: where the remote blocks land (in order, with one
                    element of gap before each, or in reverse order with gaps)
     stype=, rtype=byte|int|vector|struct   vector: 2 ints with a 4-byte hole (extent 12);
                    struct: an int and a double with a 4-byte hole (extent 16); int and vector
                    match (a vector carries 2 ints)
     skew=R:US      world rank R sleeps US microseconds before every call or start (R -1: none)
     seed=S         the data: byte b of element e sent by world rank r in call t is a hash of
                    (S, r, t, e, b)

   World rank 0 prints one verdict line per case: "intercase: case K ok, N bytes checked";
   "... MISMATCH" after the first wrong bytes of each process; "... ERROR" when a call returned
   an error code (the communicators return errors instead of aborting); "... bad case" for a case
   it cannot read; "... unavailable" when this MPI build lacks the form (a persistent
   Allgather(v)). Exit: the worst of 0 (all ok), 1 (wrong or error), 2 (bad), 4 (unavailable).
   Many cases of one world size may run in one launch (-f FILE, below): the fuzzer's batches. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#define ALLGATHER_INIT MPI_Allgather_init
#define ALLGATHERV_INIT MPI_Allgatherv_init
#elif defined(OPEN_MPI)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define HAVE_PERSISTENT 1
#define ALLGATHER_INIT MPIX_Allgather_init
#define ALLGATHERV_INIT MPIX_Allgatherv_init
#endif
#endif
#ifndef HAVE_PERSISTENT
#define HAVE_PERSISTENT 0
#endif

#define MAX_PROCS 64
#define MAX_CALLS 8
#define SENTINEL 0xEE

/* ---------------------------------------------------------------- the case */

typedef struct {
  int allgatherv, calls, p, skew_rank, skew_us;
  unsigned seed;
  char form[16], make[16], layout[16], disp[16], stype[16], rtype[16];
  int counts[2][MAX_PROCS], ncounts[2];
} Case;

static int parse_counts(const char* text, Case* c) {
  int side = 0;
  c->ncounts[0] = c->ncounts[1] = 0;
  for (const char* s = text; *s;) {
    char* end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v > 1 << 20 || c->ncounts[side] == MAX_PROCS) return 0;
    c->counts[side][c->ncounts[side]++] = (int)v;
    if (*end == '/') {
      if (side == 1) return 0;
      side = 1;
    } else if (*end && *end != ',') {
      return 0;
    }
    s = *end ? end + 1 : end;
  }
  return side == 1;
}

static int word(const char* w, const char* key, char* out, size_t size) {
  size_t n = strlen(key);
  if (strncmp(w, key, n) != 0 || w[n] != '=') return 0;
  snprintf(out, size, "%s", w + n + 1);
  return 1;
}

/* Reads the case line; returns NULL or the name of the first bad word. */
static const char* parse_case(const char* line, Case* c) {
  static char bad[64];
  char copy[4096], value[2048];
  memset(c, 0, sizeof *c);
  c->calls = 1;
  c->skew_rank = -1;
  strcpy(c->form, "blocking"), strcpy(c->make, "split"), strcpy(c->layout, "block");
  strcpy(c->disp, "contig"), strcpy(c->stype, "byte"), strcpy(c->rtype, "byte");
  snprintf(copy, sizeof copy, "%s", line);
  for (char* w = strtok(copy, " "); w; w = strtok(NULL, " ")) {
    int ok = 1;
    if (word(w, "coll", value, sizeof value))
      c->allgatherv = strcmp(value, "allgatherv") == 0, ok = c->allgatherv || strcmp(value, "allgather") == 0;
    else if (word(w, "form", c->form, sizeof c->form) || word(w, "make", c->make, sizeof c->make) ||
             word(w, "layout", c->layout, sizeof c->layout) || word(w, "disp", c->disp, sizeof c->disp) ||
             word(w, "stype", c->stype, sizeof c->stype) || word(w, "rtype", c->rtype, sizeof c->rtype))
      ;
    else if (word(w, "calls", value, sizeof value))
      c->calls = atoi(value), ok = c->calls >= 1 && c->calls <= MAX_CALLS;
    else if (word(w, "p", value, sizeof value))
      c->p = atoi(value);
    else if (word(w, "counts", value, sizeof value))
      ok = parse_counts(value, c);
    else if (word(w, "skew", value, sizeof value))
      ok = sscanf(value, "%d:%d", &c->skew_rank, &c->skew_us) == 2 && c->skew_us >= 0 && c->skew_us <= 1000000;
    else if (word(w, "seed", value, sizeof value))
      c->seed = (unsigned)strtoul(value, NULL, 10);
    else
      ok = 0;
    if (!ok) {
      snprintf(bad, sizeof bad, "%.60s", w);
      return bad;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- datatypes, without MPI */

/* A type's data bytes within one element: segments of (offset, length). */
typedef struct {
  const char* name;
  int extent, nseg, off[2], len[2];
} Layout;

static const Layout LAYOUTS[] = {
    {"byte", 1, 1, {0, 0}, {1, 0}},
    {"int", 4, 1, {0, 0}, {4, 0}},
    {"vector", 12, 2, {0, 8}, {4, 4}},
    {"struct", 16, 2, {0, 8}, {4, 8}},
};

static const Layout* layout_of(const char* name) {
  for (size_t i = 0; i < sizeof LAYOUTS / sizeof LAYOUTS[0]; ++i)
    if (strcmp(LAYOUTS[i].name, name) == 0) return &LAYOUTS[i];
  return NULL;
}

static int type_size(const Layout* l) { return l->len[0] + l->len[1]; }

static MPI_Datatype make_type(const char* name) {
  MPI_Datatype t, r;
  if (strcmp(name, "int") == 0) return MPI_INT;
  if (strcmp(name, "vector") == 0) {
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  } else if (strcmp(name, "struct") == 0) {
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lens, disps, types, &r);
    MPI_Type_create_resized(r, 0, 16, &t);
    MPI_Type_free(&r);
  } else {
    return MPI_BYTE;
  }
  MPI_Type_commit(&t);
  return t;
}

/* The n-th data byte of elements laid out by `l` from `base`: its address. */
static unsigned char* data_byte(unsigned char* base, const Layout* l, long n) {
  long size = type_size(l), e = n / size, b = n % size;
  int s = b < l->len[0] ? 0 : 1;
  return base + e * l->extent + l->off[s] + (s ? b - l->len[0] : b);
}

/* Byte n of what world rank r sends in call t. */
static unsigned char pattern(unsigned seed, int r, int t, long n) {
  uint64_t x = ((uint64_t)seed << 40) ^ ((uint64_t)(unsigned)r << 28) ^ ((uint64_t)(unsigned)t << 24) ^ (uint64_t)n;
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return (unsigned char)x;
}

/* ---------------------------------------------------------------- the groups, without MPI */

/* side_of[r]: the side of world rank r; members[s][i]: world rank of group rank i of side s. */
typedef struct {
  int side_of[MAX_PROCS], members[2][MAX_PROCS], size[2];
} Sides;

static void sides_of(const Case* c, int n, Sides* s) {
  s->size[0] = s->size[1] = 0;
  for (int r = 0; r < n; ++r) {
    int side;
    if (strcmp(c->layout, "reverse") == 0)
      side = r < n - c->p ? 1 : 0;
    else if (strcmp(c->layout, "interleave") == 0)
      side = s->size[0] == c->p ? 1 : s->size[1] == n - c->p ? 0 : r % 2;
    else
      side = r < c->p ? 0 : 1;
    s->side_of[r] = side;
    s->members[side][s->size[side]++] = r;
  }
}

/* ---------------------------------------------------------------- the intercommunicator */

static MPI_Comm create_over(MPI_Comm peer, int side) {
  int me, n;
  MPI_Comm_rank(peer, &me);
  MPI_Comm_size(peer, &n);
  int* all = malloc(sizeof(int) * (size_t)n);
  MPI_Allgather(&side, 1, MPI_INT, all, 1, MPI_INT, peer);
  int remote_leader = 0;
  while (all[remote_leader] == side) ++remote_leader;
  free(all);
  MPI_Comm local, inter;
  MPI_Comm_split(peer, side, me, &local);
  MPI_Intercomm_create(local, 0, peer, remote_leader, 17, &inter);
  MPI_Comm_free(&local);
  return inter;
}

static MPI_Comm make_intercomm(const Case* c, int side) {
  MPI_Comm peer = MPI_COMM_WORLD, dup = MPI_COMM_NULL, inter;
  if (strcmp(c->make, "dup") == 0) MPI_Comm_dup(MPI_COMM_WORLD, &dup), peer = dup;
  inter = create_over(peer, side);
  if (strcmp(c->make, "merge") == 0) {
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, side, &merged);
    MPI_Comm_free(&inter);
    inter = create_over(merged, side);
    MPI_Comm_free(&merged);
  }
  if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
  return inter;
}

/* ---------------------------------------------------------------- one process's buffers */

typedef struct {
  const Layout *sl, *rl;
  MPI_Datatype st, rt;
  int scount, rcounts[MAX_PROCS], displs[MAX_PROCS], nremote;
  long recv_elems;
} Shape;

/* Receive counts in rtype elements and displacements of the remote blocks. */
static int shape_of(const Case* c, const Sides* s, int side, int grank, Shape* sh) {
  sh->sl = layout_of(c->stype), sh->rl = layout_of(c->rtype);
  int other = 1 - side, ss = type_size(sh->sl), rs = type_size(sh->rl);
  sh->scount = c->counts[side][grank];
  sh->nremote = s->size[other];
  long at = 0;
  for (int k = 0; k < sh->nremote; ++k) {
    int j = strcmp(c->disp, "reverse") == 0 && c->allgatherv ? sh->nremote - 1 - k : k;
    long bytes = (long)c->counts[other][j] * ss;
    if (bytes % rs) return 0;
    sh->rcounts[j] = (int)(bytes / rs);
    if (c->allgatherv && strcmp(c->disp, "contig") != 0) ++at;  // one element of gap
    sh->displs[j] = (int)at;
    at += sh->rcounts[j];
  }
  sh->recv_elems = at + 1;  // and one after the last block
  return 1;
}

static void fill_send(const Case* c, const Shape* sh, unsigned char* buf, int me, int t) {
  memset(buf, SENTINEL, (size_t)(sh->scount ? sh->scount : 1) * (size_t)sh->sl->extent);
  for (long n = 0; n < (long)sh->scount * type_size(sh->sl); ++n)
    *data_byte(buf, sh->sl, n) = pattern(c->seed, me, t, n);
}

/* What the receive buffer must hold after call t: SENTINEL everywhere but the received data. */
static void expected(const Case* c, const Sides* s, const Shape* sh, int other, unsigned char* out, int t) {
  memset(out, SENTINEL, (size_t)sh->recv_elems * (size_t)sh->rl->extent);
  for (int j = 0; j < sh->nremote; ++j) {
    unsigned char* block = out + (long)sh->displs[j] * sh->rl->extent;
    for (long n = 0; n < (long)sh->rcounts[j] * type_size(sh->rl); ++n)
      *data_byte(block, sh->rl, n) = pattern(c->seed, s->members[other][j], t, n);
  }
}

/* ---------------------------------------------------------------- the calls */

static int post(const Case* c, const Shape* sh, void* sbuf, void* rbuf, MPI_Comm inter, MPI_Request* req,
                int persistent) {
  int rc0 = sh->nremote ? sh->rcounts[0] : 0;
  if (!persistent && !req)
    return c->allgatherv ? MPI_Allgatherv(sbuf, sh->scount, sh->st, rbuf, sh->rcounts, sh->displs, sh->rt, inter)
                         : MPI_Allgather(sbuf, sh->scount, sh->st, rbuf, rc0, sh->rt, inter);
  if (!persistent)
    return c->allgatherv ? MPI_Iallgatherv(sbuf, sh->scount, sh->st, rbuf, sh->rcounts, sh->displs, sh->rt, inter, req)
                         : MPI_Iallgather(sbuf, sh->scount, sh->st, rbuf, rc0, sh->rt, inter, req);
#if HAVE_PERSISTENT
  return c->allgatherv ? ALLGATHERV_INIT(sbuf, sh->scount, sh->st, rbuf, sh->rcounts, sh->displs, sh->rt, inter,
                                         MPI_INFO_NULL, req)
                       : ALLGATHER_INIT(sbuf, sh->scount, sh->st, rbuf, rc0, sh->rt, inter, MPI_INFO_NULL, req);
#else
  (void)rc0;
  return MPI_ERR_OTHER;
#endif
}

/* Prints a call's error return (on every process that got one); 1 if it was one. */
static int error_line(int rc, int me, const char* what, int t) {
  if (rc == MPI_SUCCESS) return 0;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  printf("intercase: world rank %d: %s of call %d returned %d (%s)\n", me, what, t, rc, text);
  return 1;
}

static void skew(const Case* c, int me) {
  if (me == c->skew_rank && c->skew_us) usleep((useconds_t)c->skew_us);
}

static int printed_mismatches;  // of this process in this case: the first 3 are printed

/* Compares call t's receive buffer with the reference; prints the first wrong bytes. */
static long check(const Case* c, const Sides* s, const Shape* sh, int side, int me, const unsigned char* got,
                  unsigned char* want, int t) {
  expected(c, s, sh, 1 - side, want, t);
  long bytes = sh->recv_elems * sh->rl->extent, wrong = 0;
  for (long i = 0; i < bytes; ++i)
    if (got[i] != want[i] && wrong++ >= 0 && printed_mismatches++ < 3)
      printf("intercase: MISMATCH world rank %d (side %d) call %d: byte %ld of the receive buffer is 0x%02x, "
             "want 0x%02x%s\n", me, side, t, i, got[i], want[i], want[i] == SENTINEL ? " (untouched)" : "");
  return wrong;
}

/* One case on the world: the verdict of world rank 0's line ("intercase: case K ok|MISMATCH|
   ERROR|bad case ..."); returns 0 when every byte matched and every call returned MPI_SUCCESS. */
static int run_case(const char* line, int index, int me, int n) {
  printed_mismatches = 0;
  Case c;
  const char* bad = parse_case(line, &c);
  Sides s;
  if (!bad) sides_of(&c, n, &s);
  if (!bad && (n > MAX_PROCS || c.p < 1 || c.p >= n)) bad = "p (1 <= p < world size)";
  if (!bad && (c.ncounts[0] != s.size[0] || c.ncounts[1] != s.size[1])) bad = "counts (one per process of each side)";
  if (!bad && (!layout_of(c.stype) || !layout_of(c.rtype))) bad = "stype/rtype";
  for (int k = 0; !bad && !c.allgatherv && k < 2; ++k)
    for (int i = 1; i < c.ncounts[k]; ++i)
      if (c.counts[k][i] != c.counts[k][0]) bad = "counts (allgather: one count per side)";
  int persistent = strcmp(c.form, "persistent") == 0, nonblocking = strcmp(c.form, "nonblocking") == 0;
  if (!bad && !persistent && !nonblocking && strcmp(c.form, "blocking") != 0) bad = "form";
  int side = bad ? 0 : s.side_of[me], grank = 0;
  for (int i = 0; !bad && s.members[side][i] != me; ++i) grank = i + 1;
  Shape sh;
  if (!bad && !shape_of(&c, &s, side, grank, &sh)) bad = "counts (a block's bytes must fill whole rtype elements)";
  if (bad) {
    if (me == 0) printf("intercase: case %d bad case: %s\n", index, bad);
    return 2;
  }
  if (persistent && !HAVE_PERSISTENT) {
    if (me == 0) printf("intercase: case %d unavailable: this MPI build has no persistent Allgather(v)\n", index);
    return 4;
  }
  sh.st = make_type(c.stype), sh.rt = make_type(c.rtype);
  MPI_Comm inter = make_intercomm(&c, side);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);

  /* The intercommunicator's remote group, as the case says it must be. */
  long wrong = 0, errors = 0;
  MPI_Group remote, world;
  MPI_Comm_remote_group(inter, &remote);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int j = 0; j < sh.nremote; ++j) {
    int w;
    MPI_Group_translate_ranks(remote, 1, &j, world, &w);
    if (w != s.members[1 - side][j] && wrong++ == 0)
      printf("intercase: MISMATCH world rank %d: remote group rank %d is world rank %d, want %d\n", me, j, w,
             s.members[1 - side][j]);
  }
  MPI_Group_free(&remote), MPI_Group_free(&world);

  size_t sbytes = (size_t)(sh.scount ? sh.scount : 1) * (size_t)sh.sl->extent;
  size_t rbytes = (size_t)sh.recv_elems * (size_t)sh.rl->extent;
  int nbuf = nonblocking ? c.calls : 1, posted[MAX_CALLS] = {0};
  unsigned char *sbuf[MAX_CALLS], *rbuf[MAX_CALLS], *want = malloc(rbytes);
  for (int i = 0; i < nbuf; ++i) sbuf[i] = malloc(sbytes), rbuf[i] = malloc(rbytes);
  MPI_Request req[MAX_CALLS];
  int rc = persistent ? post(&c, &sh, sbuf[0], rbuf[0], inter, &req[0], 1) : MPI_SUCCESS;
  errors += error_line(rc, me, "the persistent init", 0);
  for (int t = 0; t < c.calls && rc == MPI_SUCCESS; ++t) {
    int b = nonblocking ? t : 0;
    fill_send(&c, &sh, sbuf[b], me, t);
    memset(rbuf[b], SENTINEL, rbytes);
    skew(&c, me);
    if (persistent) {
      int e = MPI_Start(&req[0]);
      errors += error_line(e, me, "MPI_Start", t);
      if (e == MPI_SUCCESS) errors += error_line(MPI_Wait(&req[0], MPI_STATUS_IGNORE), me, "MPI_Wait", t);
    } else {
      int e = post(&c, &sh, sbuf[b], rbuf[b], inter, nonblocking ? &req[t] : NULL, 0);
      errors += error_line(e, me, nonblocking ? "the nonblocking call" : "the call", t);
      posted[t] = e == MPI_SUCCESS;
    }
    if (!nonblocking) wrong += check(&c, &s, &sh, side, me, rbuf[b], want, t);
  }
  for (int t = c.calls - 1; nonblocking && t >= 0; --t)
    if (posted[t]) errors += error_line(MPI_Wait(&req[t], MPI_STATUS_IGNORE), me, "MPI_Wait", t);
  for (int t = 0; nonblocking && t < c.calls; ++t)
    if (posted[t]) wrong += check(&c, &s, &sh, side, me, rbuf[t], want, t);
  if (persistent && rc == MPI_SUCCESS) MPI_Request_free(&req[0]);

  long mine[3] = {wrong, errors, (long)rbytes * c.calls}, total[3];
  MPI_Allreduce(mine, total, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total[1])
    printf("intercase: case %d ERROR %ld calls returned an error (%ld wrong bytes)\n", index, total[1], total[0]);
  else if (me == 0 && total[0])
    printf("intercase: case %d MISMATCH %ld wrong bytes of %ld checked\n", index, total[0], total[2]);
  else if (me == 0)
    printf("intercase: case %d ok, %ld bytes checked\n", index, total[2]);
  fflush(stdout);
  for (int i = 0; i < nbuf; ++i) free(sbuf[i]), free(rbuf[i]);
  free(want);
  MPI_Comm_free(&inter);
  if (sh.st != MPI_BYTE && sh.st != MPI_INT) MPI_Type_free(&sh.st);
  if (sh.rt != MPI_BYTE && sh.rt != MPI_INT) MPI_Type_free(&sh.rt);
  return total[0] || total[1] ? 1 : 0;
}

/* intercase 'CASE'         one case
   intercase -f FILE [K]    every line of FILE from line K (0-based) on: a batch of one world
                            size, one launch; each case's verdict is printed as it ends, so a
                            crash or a hang leaves the earlier ones */
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, n, worst = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 2 && strcmp(argv[1], "-f") == 0) {
    FILE* f = fopen(argv[2], "r");
    if (!f) {
      if (me == 0) printf("intercase: bad case: cannot read %s\n", argv[2]);
      MPI_Finalize();
      return 2;
    }
    char line[4096];
    int first = argc > 3 ? atoi(argv[3]) : 0;
    for (int k = 0; fgets(line, sizeof line, f); ++k) {
      line[strcspn(line, "\n")] = 0;
      if (k < first || !line[0]) continue;
      int r = run_case(line, k, me, n);
      if (r > worst) worst = r;
    }
    fclose(f);
  } else {
#ifdef FUZZ_CASE
    const char* line = argc > 1 ? argv[1] : FUZZ_CASE;
#else
    const char* line = argc > 1 ? argv[1] : "";
#endif
    worst = run_case(line, 0, me, n);
  }
  MPI_Finalize();
  return worst;
}

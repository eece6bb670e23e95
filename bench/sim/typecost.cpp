// The library's datatype engine, for the simulation variant only (linked into collbench when
// COLLREPRO_SMPI is ON, with GNU ld --wrap of the point-to-point calls below; see
// bench/sim/README.md).
//
// A real library moves a message of a non-contiguous datatype (the torus algorithms' combined
// messages are MPI_Type_create_struct types over several blocks) by packing it on the sender
// and unpacking it on the receiver: CPU work per message that grows with its bytes. SMPI copies
// such a message too, but charges no simulated time for it (smpi/simulate-computation:no), so a
// simulated library sends a struct message as cheaply as a contiguous one. Measured with the
// same libraries (collbench's metadata `typecosts`: a ping-pong of a 4-block struct against a
// contiguous one of the same bytes), MPICH 4.0.2 pays about a microsecond more per message,
// Open MPI 4.1.4 a tenth of that.
//
// When simrun passes a cost (`simrun --type-cost A,B,UPTO` sets COLLREPRO_SIM_TYPE_COST: A
// seconds plus B seconds per byte up to UPTO bytes, for each side of a message; `collrepro-py sim
// validate` fits them from `typecosts`: python/collrepro/sim/platforms/platform.py), every
// send and receive of a non-contiguous datatype here first takes that long on its rank's
// simulated clock (smpi_execute_flops), and a blocking receive after it has completed. Without the
// variable nothing is charged and the calls go straight through. Not charged: persistent
// requests (MPI_Send_init / MPI_Recv_init and MPI_Start), and a nonblocking receive pays at its
// post, not its completion.
#include <simgrid/host.h>
#include <smpi/smpi.h>

#include <cstdio>
#include <cstdlib>

#include "datatypes.hpp"

extern "C" {
int __real_MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int __wrap_MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int __real_MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request);
int __wrap_MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request);
int __real_MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status);
int __wrap_MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status);
int __real_MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request* request);
int __wrap_MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request* request);
int __real_MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                        MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status);
int __wrap_MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                        MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status);
}

namespace {

struct Cost {
  double per_message = 0;  // seconds, each side
  double per_byte = 0;     // seconds per byte, each side
  double upto = 0;         // bytes: the per-byte term stops growing here (the eager sizes measured)
  bool on = false;
};

// COLLREPRO_SIM_TYPE_COST, read once. A malformed value stops the simulation: a cost silently
// left out would make the run look like one with it.
const Cost& cost() {
  static const Cost c = [] {
    Cost out;
    const char* v = std::getenv("COLLREPRO_SIM_TYPE_COST");
    if (!v || !*v) return out;
    if (std::sscanf(v, "%lf,%lf,%lf", &out.per_message, &out.per_byte, &out.upto) != 3 || out.per_message < 0 ||
        out.per_byte < 0 || out.upto < 0) {
      std::fprintf(stderr, "collbench (simulation): COLLREPRO_SIM_TYPE_COST=%s: want three non-negative numbers "
                           "\"SECONDS,SECONDS_PER_BYTE,UPTO_BYTES\" (bench/sim/simrun --type-cost sets it)\n", v);
      std::abort();
    }
    out.on = out.per_message > 0 || out.per_byte > 0;
    return out;
  }();
  return c;
}

// Charges one side of a message of `count` elements of `type` when the type is not contiguous.
void charge(int count, MPI_Datatype type) {
  const Cost& c = cost();
  if (!c.on || count <= 0 || collbench::sim::contiguous_bytes(type) > 0) return;
  int size = 0;
  MPI_Type_size(type, &size);
  const double bytes = static_cast<double>(size) * count;
  // In flops at this host's speed: smpi_execute() would drop anything under smpi/cpu-threshold
  // (1 us by default), most of what a small message costs.
  if (size > 0)
    smpi_execute_flops((c.per_message + c.per_byte * (bytes < c.upto ? bytes : c.upto)) * sg_host_get_speed(sg_host_self()));
}

}  // namespace

extern "C" {

int __wrap_MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  charge(count, type);
  return __real_MPI_Send(buf, count, type, dest, tag, comm);
}

int __wrap_MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  charge(count, type);
  return __real_MPI_Isend(buf, count, type, dest, tag, comm, request);
}

int __wrap_MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const int rc = __real_MPI_Recv(buf, count, type, source, tag, comm, status);
  charge(count, type);
  return rc;
}

int __wrap_MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  charge(count, type);
  return __real_MPI_Irecv(buf, count, type, source, tag, comm, request);
}

int __wrap_MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                        MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  charge(scount, stype);
  const int rc = __real_MPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
  charge(rcount, rtype);
  return rc;
}

}  // extern "C"

// RAII wrappers for MPI handles and the error check used everywhere.
//
// Every MPI call in collrepro goes through check(), which turns an error code into an
// MpiError exception naming the call. Handles free themselves; predefined handles
// (MPI_COMM_WORLD, MPI_BYTE, ...) are never freed.
#pragma once

#ifdef COLLREPRO_PLAN_ONLY
#error "a pure plan (collplan) must not include the registry or MPI: use collrepro/cost.hpp"
#endif

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "collrepro/capabilities.hpp"

namespace collrepro {

class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws MpiError("<what>: <MPI error string>") unless rc == MPI_SUCCESS.
void check(int rc, const char* what);

// Converts a byte count to the int an MPI call takes; throws when it does not fit.
int mpi_count(std::size_t bytes, const char* what);

// The predefined type of a word of collrepro/words.hpp: MPI_BYTE for 1 byte, MPI_UINT16_T,
// MPI_UINT32_T or MPI_UINT64_T for 2, 4 or 8.
MPI_Datatype word_type(std::size_t word);
// `bytes` as a count of `word`-byte words (collrepro::word_count); throws when it does not fit.
int mpi_words(std::size_t bytes, std::size_t word, const char* what);

// An owned communicator (MPI_Comm_free on destruction). Null if MPI_COMM_NULL.
class Comm {
 public:
  Comm() = default;
  explicit Comm(MPI_Comm owned) : comm_(owned) {}
  ~Comm() { reset(); }
  Comm(Comm&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  Comm& operator=(Comm&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  static Comm dup(MPI_Comm c);
  // MPI_Comm_split; ranks passing MPI_UNDEFINED get a null Comm.
  static Comm split(MPI_Comm c, int color, int key);

  MPI_Comm get() const { return comm_; }
  explicit operator bool() const { return comm_ != MPI_COMM_NULL; }
  int rank() const;
  int size() const;
  void reset();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// An owned, committed derived datatype (MPI_Type_free on destruction).
class Datatype {
 public:
  Datatype() = default;
  explicit Datatype(MPI_Datatype owned) : type_(owned) {}
  ~Datatype() { reset(); }
  Datatype(Datatype&& o) noexcept : type_(std::exchange(o.type_, MPI_DATATYPE_NULL)) {}
  Datatype& operator=(Datatype&& o) noexcept {
    if (this != &o) {
      reset();
      type_ = std::exchange(o.type_, MPI_DATATYPE_NULL);
    }
    return *this;
  }
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;

  // Commits `t` and takes ownership.
  static Datatype commit(MPI_Datatype t);

  MPI_Datatype get() const { return type_; }
  explicit operator bool() const { return type_ != MPI_DATATYPE_NULL; }
  void reset();

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// A set of outstanding requests; the destructor waits for any left (never leaks a request).
class Requests {
 public:
  Requests() = default;
  ~Requests();
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;

  void reserve(std::size_t n) { reqs_.reserve(n); }
  MPI_Request* add() { return &reqs_.emplace_back(MPI_REQUEST_NULL); }
  void isend(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm);
  void irecv(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm);
  void wait_all();
  std::size_t size() const { return reqs_.size(); }

 private:
  std::vector<MPI_Request> reqs_;
};

// The capabilities of the running MPI library (capabilities.hpp), collective over `world`
// (MPI must be initialized): every rank gets the same answer. Call it once at start-up and pass
// the answer down.
Capabilities probe_capabilities(MPI_Comm world);

}  // namespace collrepro

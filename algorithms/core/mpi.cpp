#include "collrepro/mpi.hpp"

#include <climits>

#include "collrepro/capabilities.hpp"
#include "collrepro/words.hpp"

namespace collrepro {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw MpiError(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(len)));
}

int mpi_count(std::size_t bytes, const char* what) {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw MpiError(std::string(what) + ": " + std::to_string(bytes) +
                   " bytes exceed the int count of one MPI call (2 GiB - 1)");
  return static_cast<int>(bytes);
}

MPI_Datatype word_type(std::size_t word) {
  switch (word) {
    case 1: return MPI_BYTE;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    case 8: return MPI_UINT64_T;
    default: throw MpiError("word_type: no MPI type for a word of " + std::to_string(word) + " bytes");
  }
}

int mpi_words(std::size_t bytes, std::size_t word, const char* what) {
  if (const auto n = word_count(bytes, word)) return *n;
  throw MpiError(std::string(what) + ": " + std::to_string(bytes) + " bytes are not a count of " +
                 std::to_string(word) + "-byte words within the int of one MPI call");
}

Comm Comm::dup(MPI_Comm c) {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_dup(c, &out), "MPI_Comm_dup");
  return Comm(out);
}

Comm Comm::split(MPI_Comm c, int color, int key) {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_split(c, color, key, &out), "MPI_Comm_split");
  return Comm(out);
}

int Comm::rank() const {
  int r = -1;
  check(MPI_Comm_rank(comm_, &r), "MPI_Comm_rank");
  return r;
}

int Comm::size() const {
  int s = 0;
  check(MPI_Comm_size(comm_, &s), "MPI_Comm_size");
  return s;
}

void Comm::reset() {
  if (comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  comm_ = MPI_COMM_NULL;
}

Datatype Datatype::commit(MPI_Datatype t) {
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return Datatype(t);
}

void Datatype::reset() {
  if (type_ != MPI_DATATYPE_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Type_free(&type_);
  }
  type_ = MPI_DATATYPE_NULL;
}

Requests::~Requests() {
  if (!reqs_.empty()) MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
}

void Requests::isend(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  check(MPI_Isend(buf, mpi_count(bytes, "MPI_Isend"), MPI_BYTE, dest, tag, comm, add()), "MPI_Isend");
}

void Requests::irecv(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm) {
  check(MPI_Irecv(buf, mpi_count(bytes, "MPI_Irecv"), MPI_BYTE, src, tag, comm, add()), "MPI_Irecv");
}

void Requests::wait_all() {
  if (reqs_.empty()) return;
  const int rc = MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
  reqs_.clear();
  check(rc, "MPI_Waitall");
}

}  // namespace collrepro

namespace collrepro {

const Capabilities& mpi_capabilities() {
  static const Capabilities caps = [] {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    check(MPI_Get_library_version(text, &len), "MPI_Get_library_version");
    return Capabilities::from_identity(std::string(text, static_cast<std::size_t>(len)));
  }();
  return caps;
}

}  // namespace collrepro

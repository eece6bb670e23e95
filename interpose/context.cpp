#include "context.hpp"

#include <atomic>
#include <mutex>
#include <set>

#include "collrepro/mpi.hpp"
#include "reentry.hpp"

namespace collrepro::pmpi {
namespace {

struct Attached {
  std::mutex m;
  int keyval = MPI_KEYVAL_INVALID;
  std::set<MPI_Comm> comms;  // communicators holding a context
  std::atomic<long> live{0};
};

Attached& attached() {
  static Attached a;
  return a;
}

int delete_context(MPI_Comm comm, int, void* value, void*) {
  Entered inside;  // frees our private communicators: straight to the library
  Attached& a = attached();
  {
    std::lock_guard<std::mutex> lock(a.m);
    a.comms.erase(comm);
  }
  delete static_cast<Context*>(value);
  --a.live;
  return MPI_SUCCESS;
}

}  // namespace

std::atomic<long>& live_plans() {
  static std::atomic<long> n{0};
  return n;
}

Context& context_of(MPI_Comm comm) {
  Attached& a = attached();
  std::lock_guard<std::mutex> lock(a.m);
  if (a.keyval == MPI_KEYVAL_INVALID)
    check(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &a.keyval, nullptr),
          "MPI_Comm_create_keyval");
  void* value = nullptr;
  int found = 0;
  check(PMPI_Comm_get_attr(comm, a.keyval, &value, &found), "MPI_Comm_get_attr");
  if (found) return *static_cast<Context*>(value);
  auto context = std::make_unique<Context>();
  check(PMPI_Comm_set_attr(comm, a.keyval, context.get()), "MPI_Comm_set_attr");
  a.comms.insert(comm);
  ++a.live;
  return *context.release();
}

void release_contexts() {
  Attached& a = attached();
  std::set<MPI_Comm> comms;
  {
    std::lock_guard<std::mutex> lock(a.m);
    comms = a.comms;
  }
  for (MPI_Comm c : comms) PMPI_Comm_delete_attr(c, a.keyval);  // calls delete_context
  if (a.keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&a.keyval);
}

long live_contexts() { return attached().live.load(); }

}  // namespace collrepro::pmpi

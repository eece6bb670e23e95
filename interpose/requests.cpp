// The request table (requests.hpp) and the request calls, intercepted for the library's own
// handles only.
#include "requests.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "collrepro/mpi.hpp"
#include "intercept.hpp"

namespace collrepro::pmpi {
namespace {

struct Owned {
  std::unique_ptr<ServedCall> call;
  bool persistent = false;
  bool active = false;  // started and not yet completed (a nonblocking call: until returned)
  const char* name = "";
  MPI_Comm comm = MPI_COMM_NULL;
};

struct Table {
  std::mutex m;
  std::unordered_map<MPI_Request, Owned> entries;  // element addresses stay put until erased
  std::atomic<long> size{0};
};

Table& table() {
  static Table t;
  return t;
}

// Whether a request call may concern the library's handles: it owns some, and the call is the
// application's (not one an algorithm makes on its own requests).
bool watching() { return table().size.load(std::memory_order_relaxed) > 0 && !Entered::inside(); }

Owned* find(MPI_Request r) {
  if (r == MPI_REQUEST_NULL) return nullptr;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.m);
  const auto it = t.entries.find(r);
  return it == t.entries.end() ? nullptr : &it->second;
}

// A request that a wait would complete: an active persistent one, or a nonblocking one not yet
// returned to the application.
bool completable(const Owned* o) { return o && o->active; }

void empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

int start(Owned& o) {
  if (o.active) {
    std::fprintf(stderr, "collrepro-pmpi: MPI_Start on an active %s request (complete it with MPI_Wait first)\n",
                 o.name);
    return MPI_ERR_REQUEST;
  }
  const int rc = guarded(o.name, o.comm, [&] {
    o.call->start();
    return MPI_SUCCESS;
  });
  o.active = true;
  return rc;
}

void complete(Owned& o) {
  if (!o.active) return;
  guarded(o.name, o.comm, [&] {
    o.call->finish();
    return MPI_SUCCESS;
  });
  o.active = false;
}

// Drops the entry of `*request` and frees its handle (MPI_REQUEST_NULL after).
void forget(MPI_Request* request) {
  Table& t = table();
  std::unique_ptr<ServedCall> call;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(t.m);
    const auto it = t.entries.find(*request);
    if (it == t.entries.end()) return;
    call = std::move(it->second.call);
    t.entries.erase(it);
    --t.size;
  }
  Entered inside;
  call.reset();
  PMPI_Request_free(request);
  *request = MPI_REQUEST_NULL;
}

// Completes `o` (the request at `*request`) as a wait does: an empty status; a nonblocking
// call's handle freed.
void finish(Owned& o, MPI_Request* request, MPI_Status* status) {
  complete(o);
  empty_status(status);
  if (!o.persistent) forget(request);
}

// Waitall and Testall: the library's requests first, then the MPI library's call on the others
// (the library's own entries passed as MPI_REQUEST_NULL, their statuses kept).
template <class Call>
int all_of(int count, MPI_Request requests[], MPI_Status statuses[], Call&& call) {
  std::vector<MPI_Request> others(requests, requests + count);
  std::vector<char> mine(static_cast<std::size_t>(count), 0);
  for (int i = 0; i < count; ++i)
    if (Owned* o = find(requests[i])) {
      mine[i] = 1;
      others[i] = MPI_REQUEST_NULL;
      finish(*o, &requests[i], status_at(statuses, i));
    }
  std::vector<MPI_Status> got(statuses == MPI_STATUSES_IGNORE ? 0 : static_cast<std::size_t>(count));
  const int rc = call(others.data(), got.empty() ? MPI_STATUSES_IGNORE : got.data());
  for (int i = 0; i < count; ++i)
    if (!mine[i]) {
      requests[i] = others[i];
      if (!got.empty()) statuses[i] = got[i];
    }
  return rc;
}

// Waitsome and Testsome when the library has completable requests among them: those, completed
// in array order, are the ones reported.
bool some_of(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  int n = 0;
  for (int i = 0; i < count; ++i) {
    Owned* o = find(requests[i]);
    if (!completable(o)) continue;
    finish(*o, &requests[i], status_at(statuses, n));
    indices[n++] = i;
  }
  if (n > 0) *outcount = n;
  return n > 0;
}

// Waitany and Testany: the first completable request of the library's, if any.
bool any_of(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  for (int i = 0; i < count; ++i) {
    Owned* o = find(requests[i]);
    if (!completable(o)) continue;
    finish(*o, &requests[i], status);
    *index = i;
    return true;
  }
  return false;
}

}  // namespace

MPI_Request own_request(std::unique_ptr<ServedCall> call, bool persistent, const char* name, MPI_Comm comm) {
  MPI_Request handle = MPI_REQUEST_NULL;
  check(PMPI_Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &handle), "MPI_Send_init (handle)");
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.m);
  t.entries.emplace(handle, Owned{std::move(call), persistent, !persistent, name, comm});
  ++t.size;
  return handle;
}

long owned_requests() { return table().size.load(); }

void release_requests() {
  std::vector<MPI_Request> handles;
  {
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.m);
    for (const auto& [handle, owned] : t.entries) handles.push_back(handle);
  }
  for (MPI_Request h : handles) {
    if (Owned* o = find(h)) complete(*o);
    forget(&h);
  }
}

}  // namespace collrepro::pmpi

using namespace collrepro::pmpi;

extern "C" {

int MPI_Start(MPI_Request* request) {
  if (watching())
    if (Owned* o = find(*request)) return start(*o);
  return PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[]) {
  if (!watching()) return PMPI_Startall(count, requests);
  for (int i = 0; i < count; ++i) {
    Owned* o = find(requests[i]);
    const int rc = o ? start(*o) : PMPI_Start(&requests[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (watching())
    if (Owned* o = find(*request)) {
      finish(*o, request, status);
      return MPI_SUCCESS;
    }
  return PMPI_Wait(request, status);
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (watching())
    if (Owned* o = find(*request)) {
      finish(*o, request, status);
      *flag = 1;
      return MPI_SUCCESS;
    }
  return PMPI_Test(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!watching()) return PMPI_Waitall(count, requests, statuses);
  return all_of(count, requests, statuses,
                [&](MPI_Request* others, MPI_Status* got) { return PMPI_Waitall(count, others, got); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (!watching()) return PMPI_Testall(count, requests, flag, statuses);
  return all_of(count, requests, statuses,
                [&](MPI_Request* others, MPI_Status* got) { return PMPI_Testall(count, others, flag, got); });
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (watching() && any_of(count, requests, index, status)) return MPI_SUCCESS;
  return PMPI_Waitany(count, requests, index, status);
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (watching() && any_of(count, requests, index, status)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Waitsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (watching() && some_of(count, requests, outcount, indices, statuses)) return MPI_SUCCESS;
  return PMPI_Waitsome(count, requests, outcount, indices, statuses);
}

int MPI_Testsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (watching() && some_of(count, requests, outcount, indices, statuses)) return MPI_SUCCESS;
  return PMPI_Testsome(count, requests, outcount, indices, statuses);
}

int MPI_Request_free(MPI_Request* request) {
  if (watching())
    if (Owned* o = find(*request)) {
      complete(*o);
      forget(request);
      return MPI_SUCCESS;
    }
  return PMPI_Request_free(request);
}

}  // extern "C"

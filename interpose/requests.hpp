// Requests the library owns: a nonblocking or persistent call that an algorithm serves hands the
// application a request handle of the library's own, and the library intercepts the request
// calls (MPI_Start, MPI_Startall, MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test,
// MPI_Testall, MPI_Testany, MPI_Testsome, MPI_Request_free) for those handles; every other
// request goes to the MPI library unchanged (one relaxed atomic load when the library owns
// none).
//
// The handle is a real request of the MPI library, made by the library for the purpose: an
// inactive persistent send to MPI_PROC_NULL on MPI_COMM_SELF (PMPI_Send_init), distinct from
// every other request while it lives. So a call the library does not intercept
// (MPI_Request_get_status, MPI_Cancel) meets a valid, inactive request rather than a stray
// pointer, and never touches the served call.
//
// Why not generalized requests (MPI_Grequest_start): a generalized request completes only when
// someone calls MPI_Grequest_complete, and no thread of ours runs to do so while the application
// waits (the schedules progress inside the wait, without a helper thread); nor can one be
// started again (MPI_Start), which a persistent request must be.
//
// Limits (interpose/README.md): the served call progresses only inside the library's wait:
// MPI_Test, MPI_Testall, MPI_Testany and MPI_Testsome complete an active served request before
// they return (they block until it is done, then report it complete); MPI_Waitany and
// MPI_Waitsome (and the Test ones) report the library's active requests first, completing them
// in array order; MPI_Request_free of an active served request completes it first. Requests
// left at MPI_Finalize are completed and freed there.
#pragma once

#include <mpi.h>

#include <memory>

namespace collrepro::pmpi {

// A served call behind a request: start() begins it (a persistent call at every MPI_Start, a
// nonblocking call once, before its handle is made); finish() completes it. Both run inside
// the library (the reentry flag set): their own MPI calls go to the MPI library. An exception
// ends the job (intercept.hpp, guarded).
class ServedCall {
 public:
  virtual ~ServedCall() = default;
  virtual void start() = 0;
  virtual void finish() = 0;
};

// Takes `call` into the table and returns the handle the application gets. A nonblocking call
// arrives started (`persistent` false: the handle becomes MPI_REQUEST_NULL when it completes);
// a persistent one inactive (the handle stays until MPI_Request_free). `name` and `comm` name
// the call in an error line.
MPI_Request own_request(std::unique_ptr<ServedCall> call, bool persistent, const char* name, MPI_Comm comm);

// Requests the library owns in this process.
long owned_requests();

// Completes and frees every request still owned (MPI_Finalize, inside the library).
void release_requests();

}  // namespace collrepro::pmpi

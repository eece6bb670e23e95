// The persistent, zero-copy executor of isomorphic schedules (seed 004 §3.3): the MPI side of
// every schedule in collrepro/iso_schedule.hpp.
//
// Init (the constructor, outside any timed region) compiles each step into one send and one
// receive datatype: an MPI_Type_create_struct over the ABSOLUTE addresses (MPI_Get_address)
// of its parts in the send buffer, the receive buffer and an intermediate buffer the plan
// owns, used with MPI_BOTTOM. A side with a single part is sent as plain bytes at its address
// instead (that makes the straightforward schedule exactly Listing 4); a side whose parts are
// all empty sends zero bytes. start() runs the steps in order, each as one MPI_Sendrecv to
// R ⊕ offset / from R ⊖ offset, and then the local step (a send-receive with oneself). No
// process-local copy is made.
// A step whose partner is the process itself (the local step, and a step along a dimension
// that the offset wraps around to R, e.g. offset 2 in a dimension of size 2) runs as
// MPI_Irecv + MPI_Isend + MPI_Waitall instead: the same message to the same process, but
// SimGrid SMPI 3.32's MPI_Sendrecv copies a message to oneself with a shortcut that loses
// MPI_BOTTOM struct types (it delivered zeros: tests/sim/iso_validate.yaml), while its
// nonblocking pair handles them. Open MPI and MPICH give the same result either way. Only
// these steps change: the others stay one MPI_Sendrecv each, as measured in results/.
// The datatypes and the intermediate buffer are freed with the plan (RAII); the datatypes
// point at the buffers given at init, so these must stay put while their contents may change
// between starts.
// Call forms (StartedPlanRunner): the same compiled steps, each one round of requests (a receive
// and a send, with the step's datatypes), started in order: start() starts the first step,
// wait() completes it and then starts and completes each next one (a step may forward what an
// earlier one received), so the schedule progresses in MPI_Wait without a helper thread.
//   nonblocking: MPI_Irecv / MPI_Isend per step, posted at every call;
//   persistent:  MPI_Recv_init / MPI_Send_init per step, built once at init; a start only starts
//                them (MPI_Startall per step).
#pragma once

#include <deque>
#include <vector>

#include "collrepro/buffers.hpp"
#include "collrepro/iso_schedule.hpp"
#include "collrepro/isomorphic.hpp"
#include "collrepro/persistent.hpp"

namespace collrepro::iso {

class ZeroCopyPlan {
 public:
  // Collective only in the sense that every process must build the same schedule.
  ZeroCopyPlan(const IsoComm& comm, const Schedule& schedule, const Args& args);
  ZeroCopyPlan(ZeroCopyPlan&&) = default;
  ZeroCopyPlan(const ZeroCopyPlan&) = delete;
  ZeroCopyPlan& operator=(const ZeroCopyPlan&) = delete;

  void start() const;
  std::size_t steps() const { return steps_.size(); }
  // Step i's receive and send as persistent requests (MPI_Recv_init, MPI_Send_init), or posted
  // as nonblocking ones (MPI_Irecv, MPI_Isend).
  void build_step(std::size_t i, PersistentRequests& requests) const;
  void post_step(std::size_t i, Requests& requests) const;

 private:
  // One side of a step: what MPI_Sendrecv gets as (buffer, count, datatype).
  struct Side {
    void* buf = nullptr;
    int count = 0;
    MPI_Datatype type = MPI_BYTE;
    Datatype owned;  // the struct type, when there is one
  };
  struct CompiledStep {
    int dest = MPI_PROC_NULL, src = MPI_PROC_NULL;
    bool to_self = false;  // dest and src are this process
    Side send, recv;
  };
  // Address and size of a part in this plan's buffers.
  struct Extent {
    std::byte* at;
    std::size_t bytes;
  };

  Extent locate(const Part& p) const;
  Side compile_side(const std::vector<Part>& parts) const;
  CompiledStep compile(const IsoComm& comm, const Step& step) const;
  void exchange(const CompiledStep& s) const;
  void exchange_with_self(const CompiledStep& s) const;

  MPI_Comm comm_;
  const Args& args_;
  std::vector<std::size_t> inter_counts_, inter_displs_;
  Buffer inter_;
  std::vector<CompiledStep> steps_;
};

// A Runner that starts a ZeroCopyPlan: what prepare() of the schedule-based algorithms returns.
class PlanRunner final : public Runner {
 public:
  PlanRunner(const IsoComm& comm, const Schedule& schedule, const Args& args) : plan_(comm, schedule, args) {}
  void run() override { plan_.start(); }

 private:
  ZeroCopyPlan plan_;
};

// The nonblocking or persistent call of a ZeroCopyPlan (see the header comment).
class StartedPlanRunner final : public StartedRunner {
 public:
  StartedPlanRunner(const IsoComm& comm, const Schedule& schedule, const Args& args, CallForm form);
  void start() override;
  void wait() override;

 private:
  void begin(std::size_t step);

  ZeroCopyPlan plan_;
  bool persistent_;
  std::deque<PersistentRequests> built_;  // persistent: one set per step, built at init
  Requests posted_;                       // nonblocking: the current step's requests
};

}  // namespace collrepro::iso

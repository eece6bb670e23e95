// The persistent zero-copy executor of seed 004 §3.3; see zero_copy_executor.hpp.
#include "zero_copy_executor.hpp"

#include <stdexcept>

namespace collrepro::iso {
namespace {

constexpr int kTag = 4004;

Offset negated(Offset o) {
  for (int& x : o) x = -x;
  return o;
}

}  // namespace

ZeroCopyPlan::ZeroCopyPlan(const IsoComm& comm, const Schedule& schedule, const Args& args)
    : comm_(comm.comm()), args_(args) {
  std::size_t at = 0;
  for (int block : schedule.inter_block) {
    const std::size_t bytes = args.recv_counts.at(static_cast<std::size_t>(block));
    inter_counts_.push_back(bytes);
    inter_displs_.push_back(std::exchange(at, at + bytes));
  }
  inter_ = Buffer(at);
  for (const Step& step : schedule.steps) steps_.push_back(compile(comm, step));
  if (!schedule.local.send.empty()) steps_.push_back(compile(comm, schedule.local));
}

ZeroCopyPlan::Extent ZeroCopyPlan::locate(const Part& p) const {
  const auto slot = static_cast<std::size_t>(p.slot);
  switch (p.buf) {
    case Buf::Send:
      return {const_cast<std::byte*>(args_.send) + args_.send_displs.at(slot), args_.send_counts.at(slot)};
    case Buf::Recv: return {args_.recv + args_.recv_displs.at(slot), args_.recv_counts.at(slot)};
    case Buf::Inter: return {const_cast<std::byte*>(inter_.data()) + inter_displs_.at(slot), inter_counts_.at(slot)};
  }
  throw std::logic_error("ZeroCopyPlan: unknown buffer");
}

ZeroCopyPlan::Side ZeroCopyPlan::compile_side(const std::vector<Part>& parts) const {
  std::vector<Extent> nonempty;
  for (const Part& p : parts)
    if (const Extent e = locate(p); e.bytes > 0) nonempty.push_back(e);
  Side side;
  if (nonempty.empty()) {
    side.buf = const_cast<std::byte*>(inter_.data());  // any valid address: zero bytes
    return side;
  }
  if (nonempty.size() == 1) {
    side.buf = nonempty.front().at;
    side.count = mpi_count(nonempty.front().bytes, "isomorphic step part");
    return side;
  }
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  const std::vector<MPI_Datatype> types(nonempty.size(), MPI_BYTE);
  for (const Extent& e : nonempty) {
    lengths.push_back(mpi_count(e.bytes, "isomorphic step part"));
    MPI_Aint address = 0;
    check(MPI_Get_address(e.at, &address), "MPI_Get_address");
    displs.push_back(address);
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  check(MPI_Type_create_struct(static_cast<int>(nonempty.size()), lengths.data(), displs.data(), types.data(), &t),
        "MPI_Type_create_struct");
  side.owned = Datatype::commit(t);
  side.buf = MPI_BOTTOM;
  side.count = 1;
  side.type = side.owned.get();
  return side;
}

ZeroCopyPlan::CompiledStep ZeroCopyPlan::compile(const IsoComm& comm, const Step& step) const {
  CompiledStep c;
  c.dest = comm.rank_at(step.offset);
  c.src = comm.rank_at(negated(step.offset));
  c.to_self = c.dest == comm.rank() && c.src == comm.rank();
  c.send = compile_side(step.send);
  c.recv = compile_side(step.recv);
  return c;
}

void ZeroCopyPlan::start() const {
  for (const CompiledStep& s : steps_) s.to_self ? exchange_with_self(s) : exchange(s);
}

void ZeroCopyPlan::exchange(const CompiledStep& s) const {
  check(MPI_Sendrecv(s.send.buf, s.send.count, s.send.type, s.dest, kTag, s.recv.buf, s.recv.count, s.recv.type, s.src,
                     kTag, comm_, MPI_STATUS_IGNORE),
        "MPI_Sendrecv (isomorphic step)");
}

void ZeroCopyPlan::exchange_with_self(const CompiledStep& s) const {
  MPI_Request requests[2];
  check(MPI_Irecv(s.recv.buf, s.recv.count, s.recv.type, s.src, kTag, comm_, &requests[0]), "MPI_Irecv (local step)");
  check(MPI_Isend(s.send.buf, s.send.count, s.send.type, s.dest, kTag, comm_, &requests[1]), "MPI_Isend (local step)");
  check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall (local step)");
}

void ZeroCopyPlan::build_step(std::size_t i, PersistentRequests& requests) const {
  const CompiledStep& s = steps_.at(i);
  check(MPI_Recv_init(s.recv.buf, s.recv.count, s.recv.type, s.src, kTag, comm_, requests.add()),
        "MPI_Recv_init (isomorphic step)");
  check(MPI_Send_init(s.send.buf, s.send.count, s.send.type, s.dest, kTag, comm_, requests.add()),
        "MPI_Send_init (isomorphic step)");
}

void ZeroCopyPlan::post_step(std::size_t i, Requests& requests) const {
  const CompiledStep& s = steps_.at(i);
  check(MPI_Irecv(s.recv.buf, s.recv.count, s.recv.type, s.src, kTag, comm_, requests.add()),
        "MPI_Irecv (isomorphic step)");
  check(MPI_Isend(s.send.buf, s.send.count, s.send.type, s.dest, kTag, comm_, requests.add()),
        "MPI_Isend (isomorphic step)");
}

StartedPlanRunner::StartedPlanRunner(const IsoComm& comm, const Schedule& schedule, const Args& args, CallForm form)
    : plan_(comm, schedule, args), persistent_(form == CallForm::Persistent) {
  if (!persistent_) return;
  for (std::size_t i = 0; i < plan_.steps(); ++i) plan_.build_step(i, built_.emplace_back());
}

void StartedPlanRunner::begin(std::size_t step) {
  if (persistent_)
    built_[step].start_all();
  else
    plan_.post_step(step, posted_);
}

void StartedPlanRunner::start() {
  if (plan_.steps() > 0) begin(0);
}

void StartedPlanRunner::wait() {
  for (std::size_t i = 0; i < plan_.steps(); ++i) {
    if (i > 0) begin(i);
    if (persistent_)
      built_[i].wait_all();
    else
      posted_.wait_all();
  }
}

}  // namespace collrepro::iso

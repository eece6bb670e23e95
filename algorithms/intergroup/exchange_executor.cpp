#include "intergroup/exchange_executor.hpp"

#include <cstring>

namespace collrepro::inter {

namespace {
constexpr int kExchangeTag = 3101;
}

ResultStage::ResultStage(const Args& args)
    : args_(args), staged_(!args.contiguous()), scratch_(staged_ ? args.recv_total() : 0) {}

void ResultStage::finish() {
  if (!staged_) return;
  std::size_t at = 0;
  for (std::size_t j = 0; j < args_.recv_counts.size(); ++j) {
    std::memcpy(args_.recv + args_.recv_displs[j], scratch_.data() + at, args_.recv_counts[j]);
    at += args_.recv_counts[j];
  }
}

ExchangeExecutor::ExchangeExecutor(const GroupPair& pair, bool ordered) : pair_(pair), ordered_(ordered) {}

void ExchangeExecutor::exchange(const std::byte* send, const std::vector<Transfer>& sends, std::byte* result,
                                const std::vector<Transfer>& recvs) const {
  const MPI_Comm comm = pair_.p2p();
  Requests requests;
  requests.reserve(sends.size() + recvs.size());
  if (!ordered_)
    for (const Transfer& r : recvs) requests.irecv(result + r.offset, r.bytes, pair_.remote(r.peer), kExchangeTag, comm);
  for (const Transfer& s : sends) requests.isend(send + s.offset, s.bytes, pair_.remote(s.peer), kExchangeTag, comm);
  if (ordered_)
    for (const Transfer& r : recvs)
      check(MPI_Recv(result + r.offset, mpi_count(r.bytes, "MPI_Recv"), MPI_BYTE, pair_.remote(r.peer), kExchangeTag,
                     comm, MPI_STATUS_IGNORE),
            "MPI_Recv");
  requests.wait_all();
}

void ExchangeExecutor::gather(std::byte* result, const std::vector<int>& counts, const std::vector<int>& displs) const {
  allgatherv_in_place(pair_.local(), result, counts, displs, "MPI_Allgatherv (intra-group)");
}

void ExchangeExecutor::exchange(StartedRounds& rounds, SourceAt send, const std::vector<Transfer>& sends,
                                ResultAt result, const std::vector<Transfer>& recvs) const {
  const MPI_Comm comm = pair_.p2p();
  rounds.next_round();
  for (const Transfer& r : recvs)
    rounds.recv([result, at = r.offset] { return static_cast<void*>(result() + at); },
                [n = mpi_count(r.bytes, "MPI_Irecv")] { return n; }, MPI_BYTE, pair_.remote(r.peer), kExchangeTag,
                comm);
  for (const Transfer& s : sends)
    rounds.send([send, at = s.offset] { return static_cast<const void*>(send() + at); },
                [n = mpi_count(s.bytes, "MPI_Isend")] { return n; }, MPI_BYTE, pair_.remote(s.peer), kExchangeTag,
                comm);
}

void ExchangeExecutor::exchange(StartedRounds& rounds, std::function<void()> plan, SourceAt send,
                                const std::vector<Transfer>& per_peer, ResultAt result,
                                const std::vector<Transfer>& recvs) const {
  const MPI_Comm comm = pair_.p2p();
  rounds.next_round(std::move(plan));
  for (const Transfer& r : recvs)
    rounds.recv([result, at = r.offset] { return static_cast<void*>(result() + at); },
                [n = mpi_count(r.bytes, "MPI_Irecv")] { return n; }, MPI_BYTE, pair_.remote(r.peer), kExchangeTag,
                comm);
  for (std::size_t j = 0; j < per_peer.size(); ++j) {
    const Transfer* s = &per_peer[j];
    rounds.send_nonempty([send, s] { return static_cast<const void*>(send() + s->offset); },
                         [s] { return mpi_count(s->bytes, "MPI_Isend"); }, MPI_BYTE,
                         pair_.remote(static_cast<int>(j)), kExchangeTag, comm);
  }
}

void ExchangeExecutor::gather(StartedRounds& rounds, ResultAt result, const std::vector<int>& counts,
                              const std::vector<int>& displs) const {
  rounds.next_round();
  rounds.allgatherv_in_place(pair_.local(), std::move(result), counts, displs, "intra-group");
}

void allgatherv_in_place(MPI_Comm comm, std::byte* result, const std::vector<int>& counts,
                         const std::vector<int>& displs, const char* what) {
  if (!counts.empty() && uniform_in_rank_order(counts, displs)) {
    check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, result, counts[0], MPI_BYTE, comm), what);
    return;
  }
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, result, counts.data(), displs.data(), MPI_BYTE, comm), what);
}

std::vector<int> to_int_counts(const std::vector<std::size_t>& v, const char* what) {
  std::vector<int> out;
  out.reserve(v.size());
  for (std::size_t x : v) out.push_back(mpi_count(x, what));
  return out;
}

}  // namespace collrepro::inter

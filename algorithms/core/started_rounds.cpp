#include "collrepro/started_rounds.hpp"

namespace collrepro {

bool uniform_in_rank_order(const std::vector<int>& counts, const std::vector<int>& displs) {
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != counts[0] || displs[i] != static_cast<int>(i) * counts[0]) return false;
  return true;
}

StartedRounds::StartedRounds(CallForm form, const Capabilities& caps)
    : p2p_persistent_(form == CallForm::Persistent),
      coll_persistent_(form == CallForm::Persistent && caps.intra_persistent) {}

void StartedRounds::next_round(std::function<void()> before) { rounds_.emplace_back().before = std::move(before); }

void StartedRounds::add(bool collective, const Call& init, const std::string& init_what, Call post,
                        std::string post_what) {
  Round& r = rounds_.back();
  if (collective ? coll_persistent_ : p2p_persistent_) {
    check(init(r.built.add()), init_what.c_str());
    return;
  }
  post_each_start(std::move(post), std::move(post_what));
}

void StartedRounds::post_each_start(Call post, std::string what) {
  rounds_.back().posts.push_back({std::move(post), std::move(what)});
}

void StartedRounds::send_nonempty(std::function<const void*()> buf, std::function<int()> count, MPI_Datatype type,
                                  int dest, int tag, MPI_Comm comm) {
  if (p2p_persistent_) {
    if (count() > 0) send(std::move(buf), std::move(count), type, dest, tag, comm);
    return;
  }
  post_each_start(
      [=](MPI_Request* r) {
        const int n = count();
        return n > 0 ? MPI_Isend(buf(), n, type, dest, tag, comm, r) : MPI_SUCCESS;  // *r stays MPI_REQUEST_NULL
      },
      "MPI_Isend");
}

void StartedRounds::iallreduce_sum(const std::uint64_t* in, std::uint64_t* out, MPI_Comm comm,
                                   const std::string& what) {
  post_each_start([=](MPI_Request* r) { return MPI_Iallreduce(in, out, 1, MPI_UINT64_T, MPI_SUM, comm, r); },
                  "MPI_Iallreduce (" + what + ")");
}

void StartedRounds::iexscan_sum(const std::uint64_t* in, std::uint64_t* out, MPI_Comm comm, const std::string& what) {
  post_each_start([=](MPI_Request* r) { return MPI_Iexscan(in, out, 1, MPI_UINT64_T, MPI_SUM, comm, r); },
                  "MPI_Iexscan (" + what + ")");
}

void StartedRounds::send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  send([buf] { return buf; }, [count] { return count; }, type, dest, tag, comm);
}

void StartedRounds::recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm) {
  recv([buf] { return buf; }, [count] { return count; }, type, source, tag, comm);
}

void StartedRounds::send(std::function<const void*()> buf, std::function<int()> count, MPI_Datatype type, int dest,
                         int tag, MPI_Comm comm) {
  add(
      false, [&](MPI_Request* r) { return MPI_Send_init(buf(), count(), type, dest, tag, comm, r); }, "MPI_Send_init",
      [=](MPI_Request* r) { return MPI_Isend(buf(), count(), type, dest, tag, comm, r); }, "MPI_Isend");
}

void StartedRounds::recv(std::function<void*()> buf, std::function<int()> count, MPI_Datatype type, int source,
                         int tag, MPI_Comm comm) {
  add(
      false, [&](MPI_Request* r) { return MPI_Recv_init(buf(), count(), type, source, tag, comm, r); },
      "MPI_Recv_init", [=](MPI_Request* r) { return MPI_Irecv(buf(), count(), type, source, tag, comm, r); },
      "MPI_Irecv");
}

namespace {

// An in-place Allgather(v) or a Bcast over one process moves nothing: the round gets no request
// (a library's nonblocking or persistent call would still build and run a schedule for it).
bool alone(MPI_Comm comm) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size == 1;
}

}  // namespace

void StartedRounds::allgatherv_in_place(MPI_Comm comm, std::byte* result, const std::vector<int>& counts,
                                        const std::vector<int>& displs, const std::string& what) {
  allgatherv_in_place(comm, [result] { return result; }, counts, displs, what);
}

void StartedRounds::allgatherv_in_place(MPI_Comm comm, std::function<std::byte*()> result,
                                        const std::vector<int>& counts, const std::vector<int>& displs,
                                        const std::string& what) {
  if (alone(comm)) return;
  if (!counts.empty() && uniform_in_rank_order(counts, displs)) {
    const int count = counts[0];
    add(
        true,
        [&](MPI_Request* r) { return allgather_init(MPI_IN_PLACE, 0, MPI_BYTE, result(), count, MPI_BYTE, comm, r); },
        "allgather_init (" + what + ")",
        [=](MPI_Request* r) { return MPI_Iallgather(MPI_IN_PLACE, 0, MPI_BYTE, result(), count, MPI_BYTE, comm, r); },
        "MPI_Iallgather (" + what + ")");
    return;
  }
  const int* c = counts.data();
  const int* d = displs.data();
  add(
      true,
      [&](MPI_Request* r) { return allgatherv_init(MPI_IN_PLACE, 0, MPI_BYTE, result(), c, d, MPI_BYTE, comm, r); },
      "allgatherv_init (" + what + ")",
      [=](MPI_Request* r) { return MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_BYTE, result(), c, d, MPI_BYTE, comm, r); },
      "MPI_Iallgatherv (" + what + ")");
}

void StartedRounds::bcast(std::function<void*()> buf, std::function<int()> count, MPI_Datatype type, int root,
                          MPI_Comm comm, const std::string& what) {
  if (alone(comm)) return;
  add(
      true, [&](MPI_Request* r) { return bcast_init(buf(), count(), type, root, comm, r); }, "bcast_init (" + what + ")",
      [=](MPI_Request* r) { return MPI_Ibcast(buf(), count(), type, root, comm, r); }, "MPI_Ibcast (" + what + ")");
}

void StartedRounds::gather(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                           MPI_Datatype recv_type, int root, MPI_Comm comm, const std::string& what) {
  add(
      true,
      [&](MPI_Request* r) {
        return gather_init(send, send_count, send_type, recv, recv_count, recv_type, root, comm, r);
      },
      "gather_init (" + what + ")",
      [=](MPI_Request* r) {
        return MPI_Igather(send, send_count, send_type, recv, recv_count, recv_type, root, comm, r);
      },
      "MPI_Igather (" + what + ")");
}

void StartedRounds::gatherv(std::function<const void*()> send, std::function<int()> send_count, MPI_Datatype type,
                            std::function<void*()> recv, const std::vector<int>& counts,
                            const std::vector<int>& displs, int root, MPI_Comm comm, const std::string& what) {
  const std::vector<int>* c = &counts;
  const std::vector<int>* d = &displs;
  add(
      true,
      [&](MPI_Request* r) {
        return gatherv_init(send(), send_count(), type, recv(), c->data(), d->data(), type, root, comm, r);
      },
      "gatherv_init (" + what + ")",
      [=](MPI_Request* r) {
        return MPI_Igatherv(send(), send_count(), type, recv(), c->data(), d->data(), type, root, comm, r);
      },
      "MPI_Igatherv (" + what + ")");
}

void StartedRounds::begin(Round& r) {
  if (r.before) r.before();
  r.built.start_all();
  for (const Posted& p : r.posts) check(p.call(r.posted.add()), p.what.c_str());
}

void StartedRounds::start() {
  if (!rounds_.empty()) begin(rounds_.front());
}

void StartedRounds::wait() {
  for (std::size_t i = 0; i < rounds_.size(); ++i) {
    if (i > 0) begin(rounds_[i]);
    rounds_[i].built.wait_all();
    rounds_[i].posted.wait_all();
  }
}

}  // namespace collrepro

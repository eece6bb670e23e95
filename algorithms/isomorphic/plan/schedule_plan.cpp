// Schedule utilities shared by every isomorphic schedule: volume, cost, the per-step
// invariants and a symbolic simulation on a small torus (what the unit tests run instead of
// MPI). Pure: compiled into collplan.
#include <algorithm>
#include <set>

#include "collrepro/iso_schedule.hpp"

namespace collrepro::iso {

const char* to_string(Buf b) {
  switch (b) {
    case Buf::Send: return "send";
    case Buf::Recv: return "recv";
    case Buf::Inter: return "inter";
  }
  return "?";
}

std::size_t Schedule::volume() const {
  std::size_t v = 0;
  for (const Step& st : steps) v += st.recv.size();
  return v;
}

int Schedule::size_class(const Part& p) const {
  if (pattern == Pattern::Allgather) return 0;
  return p.buf == Buf::Inter ? inter_block[static_cast<std::size_t>(p.slot)] : p.slot;
}

namespace {

std::size_t part_bytes(const Schedule& s, const Part& p, std::span<const std::size_t> recv_bytes) {
  const auto c = static_cast<std::size_t>(s.size_class(p));
  return c < recv_bytes.size() ? recv_bytes[c] : 0;
}

std::size_t step_bytes(const Schedule& s, const Step& st, std::span<const std::size_t> recv_bytes) {
  std::size_t b = 0;
  for (const Part& p : st.recv) b += part_bytes(s, p, recv_bytes);
  return b;
}

std::string where(std::size_t step, const Part& p) {
  return "step " + std::to_string(step) + " " + to_string(p.buf) + "[" + std::to_string(p.slot) + "]";
}

std::size_t slots_of(const Schedule& s, Buf b) {
  switch (b) {
    case Buf::Send: return s.pattern == Pattern::Allgather ? 1 : s.blocks;
    case Buf::Recv: return s.blocks;
    case Buf::Inter: return s.inter_block.size();
  }
  return 0;
}

std::optional<std::string> check_step(const Schedule& s, const Step& st, std::size_t index) {
  if (st.send.size() != st.recv.size())
    return "step " + std::to_string(index) + " sends " + std::to_string(st.send.size()) + " parts but receives " +
           std::to_string(st.recv.size());
  std::set<std::pair<Buf, int>> read, written;
  for (std::size_t k = 0; k < st.send.size(); ++k) {
    const Part &out = st.send[k], &in = st.recv[k];
    for (const Part& p : {out, in})
      if (p.slot < 0 || static_cast<std::size_t>(p.slot) >= slots_of(s, p.buf))
        return where(index, p) + " is out of range";
    if (in.buf == Buf::Send) return where(index, in) + " writes the send buffer";
    if (s.size_class(out) != s.size_class(in))
      return where(index, out) + " is paired with " + to_string(in.buf) + "[" + std::to_string(in.slot) +
             "] of another block size";
    read.insert({out.buf, out.slot});
    if (!written.insert({in.buf, in.slot}).second) return where(index, in) + " is written twice";
  }
  for (const auto& w : written)
    if (read.count(w)) return where(index, Part{w.first, w.second}) + " is both read and written";
  return std::nullopt;
}

// Token = (origin rank, block) of the data a slot holds; {-1, -1} = nothing yet.
using Token = std::pair<int, int>;
constexpr Token kEmpty{-1, -1};

struct Torus {
  std::vector<int> dims;
  int size() const {
    int p = 1;
    for (int x : dims) p *= x;
    return p;
  }
  std::vector<int> coords(int rank) const {
    std::vector<int> c(dims.size());
    for (std::size_t j = dims.size(); j-- > 0;) {
      c[j] = rank % dims[j];
      rank /= dims[j];
    }
    return c;
  }
  // rank of R ⊕ sign * offset
  int shift(int rank, const Offset& offset, int sign) const {
    auto c = coords(rank);
    int r = 0;
    for (std::size_t j = 0; j < dims.size(); ++j) {
      const int x = ((c[j] + sign * offset[j]) % dims[j] + dims[j]) % dims[j];
      r = r * dims[j] + x;
    }
    return r;
  }
};

struct ProcessBuffers {
  std::vector<Token> send, recv, inter;
  std::vector<Token>& of(Buf b) { return b == Buf::Send ? send : b == Buf::Recv ? recv : inter; }
};

void run_step(const Torus& t, const Step& st, std::vector<ProcessBuffers>& procs) {
  const int p = t.size();
  std::vector<std::vector<Token>> messages(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r)
    for (const Part& part : st.send)
      messages[static_cast<std::size_t>(r)].push_back(
          procs[static_cast<std::size_t>(r)].of(part.buf)[static_cast<std::size_t>(part.slot)]);
  for (int r = 0; r < p; ++r) {
    const auto& msg = messages[static_cast<std::size_t>(t.shift(r, st.offset, -1))];
    for (std::size_t k = 0; k < st.recv.size(); ++k)
      procs[static_cast<std::size_t>(r)].of(st.recv[k].buf)[static_cast<std::size_t>(st.recv[k].slot)] = msg[k];
  }
}

}  // namespace

Cost schedule_cost(const Schedule& s, std::span<const std::size_t> recv_bytes) {
  Cost c;
  c.alpha_terms = static_cast<double>(s.steps.size());
  for (const Step& st : s.steps) c.beta_bytes += static_cast<double>(step_bytes(s, st, recv_bytes));
  return c;
}

std::size_t max_step_bytes(const Schedule& s, std::span<const std::size_t> recv_bytes) {
  std::size_t m = step_bytes(s, s.local, recv_bytes);
  for (const Step& st : s.steps) m = std::max(m, step_bytes(s, st, recv_bytes));
  return m;
}

std::optional<std::string> check_steps(const Schedule& s) {
  if (s.pattern == Pattern::Alltoall)
    for (std::size_t k = 0; k < s.inter_block.size(); ++k)
      if (s.inter_block[k] < 0 || static_cast<std::size_t>(s.inter_block[k]) >= s.blocks)
        return "inter slot " + std::to_string(k) + " mirrors a block out of range";
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (auto bad = check_step(s, s.steps[i], i)) return bad;
  if (!is_zero(s.local.offset)) return "the local step has a nonzero offset";
  return check_step(s, s.local, s.steps.size());
}

std::optional<std::string> simulate(const Schedule& s, const Neighborhood& n, std::span<const int> dims) {
  if (auto bad = check_steps(s)) return bad;
  const Torus t{std::vector<int>(dims.begin(), dims.end())};
  if (static_cast<int>(dims.size()) != n.dims()) return std::string("torus and neighbourhood dimensions differ");
  const int p = t.size();
  std::vector<ProcessBuffers> procs(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    auto& b = procs[static_cast<std::size_t>(r)];
    b.send.resize(slots_of(s, Buf::Send));
    for (std::size_t i = 0; i < b.send.size(); ++i) b.send[i] = {r, static_cast<int>(i)};
    b.recv.assign(s.blocks, kEmpty);
    b.inter.assign(s.inter_block.size(), kEmpty);
  }
  for (const Step& st : s.steps) run_step(t, st, procs);
  Step local = s.local;
  local.offset.assign(dims.size(), 0);
  run_step(t, local, procs);
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < s.blocks; ++i) {
      const Token want{t.shift(r, n[i], -1), s.pattern == Pattern::Allgather ? 0 : static_cast<int>(i)};
      const Token got = procs[static_cast<std::size_t>(r)].recv[i];
      if (got != want)
        return "rank " + std::to_string(r) + " recv[" + std::to_string(i) + "] holds block " +
               std::to_string(got.second) + " of rank " + std::to_string(got.first) + ", expected block " +
               std::to_string(want.second) + " of rank " + std::to_string(want.first);
    }
  return std::nullopt;
}

}  // namespace collrepro::iso

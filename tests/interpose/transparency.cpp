// An ordinary MPI program for the interposition library's transparency test: it calls every
// collective the library serves, on every shape that fits the process count, and compares the
// result of each call (MPI_*: the library when preloaded) byte for byte with the MPI library's
// own call (PMPI_*) on the same input, including the bytes around the blocks.
//   inter-group: MPI_Allgather and MPI_Allgatherv on every split of the processes, blocks of
//     0, 1, 7 and 70000 bytes, half duplex both ways, a vector and a resized datatype, Allgatherv with
//     zeros and reversed, gapped displacements;
//   isomorphic: a periodic ring and a line (Cartesian), a 2-d torus when the size allows it, and
//     distributed graphs with offsets {+1, +2, -1} and {0, +1}, for MPI_Neighbor_alltoall,
//     _allgather and _alltoallw (per-block sizes, a vector datatype).
// Prints "transparency: N calls equal" on rank 0, or the first difference and exits 1.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

int world_rank = 0, world_size = 0;
long checked = 0;

using Bytes = std::vector<unsigned char>;

Bytes pattern(std::size_t n, int salt) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>((i * 131 + static_cast<std::size_t>(salt) * 17 + 5) % 251);
  return b;
}

// Runs `call(recv)` twice, through MPI_* and PMPI_*, on recv buffers prefilled with sentinels.
void compare(const std::string& what, std::size_t recv_bytes, const std::function<void(unsigned char*, bool)>& call,
             MPI_Comm comm) {
  Bytes mine(recv_bytes + 64, 0xA5), native(recv_bytes + 64, 0xA5);
  call(mine.data() + 32, false);
  call(native.data() + 32, true);
  int same = mine == native ? 1 : 0, all = 0;
  PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!same) {
    std::size_t i = 0;
    while (mine[i] == native[i]) ++i;
    std::fprintf(stderr, "transparency: rank %d: %s differs at byte %zd: %d (library) vs %d (native)\n", world_rank,
                 what.c_str(), static_cast<std::ptrdiff_t>(i) - 32, mine[i], native[i]);
  }
  if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  ++checked;
}

MPI_Comm split_intercomm(int p) {
  const int side = world_rank < p ? 0 : 1;
  MPI_Comm local, inter;
  PMPI_Comm_split(MPI_COMM_WORLD, side, world_rank, &local);
  PMPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? p : 0, 99, &inter);
  PMPI_Comm_free(&local);
  return inter;
}

void intergroup(int p) {
  MPI_Comm inter = split_intercomm(p);
  const int side = world_rank < p ? 0 : 1;
  int remote = 0, lrank = 0;
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm_rank(inter, &lrank);
  const std::string shape = "p=" + std::to_string(p) + " q=" + std::to_string(world_size - p);
  for (int k : {0, 1, 7, 70000}) {
    for (int half = 0; half < 3; ++half) {  // full duplex, A silent, B silent
      const int mine = (half == 1 && side == 0) || (half == 2 && side == 1) ? 0 : k;
      const int theirs = (half == 1 && side == 1) || (half == 2 && side == 0) ? 0 : k;
      const Bytes send = pattern(static_cast<std::size_t>(mine), world_rank);
      compare("Allgather " + shape + " k=" + std::to_string(k) + " half=" + std::to_string(half),
              static_cast<std::size_t>(theirs) * static_cast<std::size_t>(remote),
              [&](unsigned char* r, bool native) {
                (native ? PMPI_Allgather : MPI_Allgather)(send.data(), mine, MPI_BYTE, r, theirs, MPI_BYTE, inter);
              },
              inter);
    }
  }
  {  // every other int: a vector datatype on both sides
    MPI_Datatype every_other;
    MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    const Bytes send = pattern(10 * sizeof(int), world_rank);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(every_other, &lb, &extent);
    compare("Allgather vector datatype " + shape, static_cast<std::size_t>(extent) * static_cast<std::size_t>(remote),
            [&](unsigned char* r, bool native) {
              (native ? PMPI_Allgather : MPI_Allgather)(send.data(), 1, every_other, r, 1, every_other, inter);
            },
            inter);
    MPI_Type_free(&every_other);
  }
  {  // an int resized to 8 bytes: one element per block, the blocks 8 bytes apart
    MPI_Datatype spaced;
    MPI_Type_create_resized(MPI_INT, 0, 8, &spaced);
    MPI_Type_commit(&spaced);
    const Bytes send = pattern(8, world_rank + 5);
    compare("Allgather resized datatype " + shape, 8 * static_cast<std::size_t>(remote),
            [&](unsigned char* r, bool native) {
              (native ? PMPI_Allgather : MPI_Allgather)(send.data(), 1, spaced, r, 1, spaced, inter);
            },
            inter);
    MPI_Type_free(&spaced);
  }
  for (int variant = 0; variant < 2; ++variant) {  // sizes with zeros; reversed gapped displacements
    auto size_of = [&](int group_side, int r) { return variant == 0 ? (r % 3 == 1 ? 0 : 3 * r + group_side + 1) : 1000 * (r + 1); };
    const int mine = size_of(side, lrank);
    std::vector<int> counts(static_cast<std::size_t>(remote)), displs(counts.size());
    int at = 0;
    for (int j = remote - 1; j >= 0; --j) {
      counts[static_cast<std::size_t>(j)] = size_of(1 - side, j);
      displs[static_cast<std::size_t>(j)] = at;
      at += counts[static_cast<std::size_t>(j)] + (variant == 1 ? 3 : 0);
    }
    const Bytes send = pattern(static_cast<std::size_t>(mine), world_rank + 7);
    compare("Allgatherv " + shape + " variant " + std::to_string(variant), static_cast<std::size_t>(at),
            [&](unsigned char* r, bool native) {
              (native ? PMPI_Allgatherv : MPI_Allgatherv)(send.data(), mine, MPI_BYTE, r, counts.data(), displs.data(),
                                                          MPI_BYTE, inter);
            },
            inter);
  }
  MPI_Comm_free(&inter);
}

bool is_cartesian(MPI_Comm comm) {
  int kind;
  MPI_Topo_test(comm, &kind);
  return kind == MPI_CART;
}

int degree(MPI_Comm comm) {
  int kind;
  MPI_Topo_test(comm, &kind);
  if (kind == MPI_CART) {
    int nd;
    MPI_Cartdim_get(comm, &nd);
    return 2 * nd;
  }
  int in, out, w;
  MPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
  return out;
}

void neighborhood(MPI_Comm comm, const std::string& name) {
  const int s = degree(comm);
  for (int k : {1, 8, 4096}) {
    const Bytes send = pattern(static_cast<std::size_t>(s * k), world_rank);
    const std::string shape = name + " m=" + std::to_string(k);
    compare("Neighbor_alltoall " + shape, static_cast<std::size_t>(s * k),
            [&](unsigned char* r, bool native) {
              (native ? PMPI_Neighbor_alltoall : MPI_Neighbor_alltoall)(send.data(), k, MPI_BYTE, r, k, MPI_BYTE, comm);
            },
            comm);
    compare("Neighbor_allgather " + shape, static_cast<std::size_t>(s * k),
            [&](unsigned char* r, bool native) {
              (native ? PMPI_Neighbor_allgather : MPI_Neighbor_allgather)(send.data(), k, MPI_BYTE, r, k, MPI_BYTE, comm);
            },
            comm);
    // alltoallw: send block i has (i + 1) * k bytes, sent from reversed places; it arrives in the
    // receive block of the opposite direction (Cartesian: i ^ 1; the graphs here list each
    // source as the opposite of the destination of the same index), received with gaps.
    const bool cart = is_cartesian(comm);
    std::vector<int> counts(static_cast<std::size_t>(s)), rcounts(counts.size());
    std::vector<MPI_Aint> sd(counts.size()), rd(counts.size());
    std::vector<MPI_Datatype> types(counts.size(), MPI_BYTE);
    MPI_Aint sat = 0, rat = 0;
    for (int i = s - 1; i >= 0; --i) {
      counts[static_cast<std::size_t>(i)] = (i + 1) * k;
      sd[static_cast<std::size_t>(i)] = sat;
      sat += (i + 1) * k;
    }
    for (int i = 0; i < s; ++i) {
      rcounts[static_cast<std::size_t>(i)] = counts[static_cast<std::size_t>(cart ? i ^ 1 : i)];
      rd[static_cast<std::size_t>(i)] = rat;
      rat += rcounts[static_cast<std::size_t>(i)] + 5;
    }
    const Bytes wsend = pattern(static_cast<std::size_t>(sat), world_rank + 3);
    compare("Neighbor_alltoallw " + shape, static_cast<std::size_t>(rat),
            [&](unsigned char* r, bool native) {
              (native ? PMPI_Neighbor_alltoallw : MPI_Neighbor_alltoallw)(wsend.data(), counts.data(), sd.data(),
                                                                          types.data(), r, rcounts.data(), rd.data(),
                                                                          types.data(), comm);
            },
            comm);
  }
  // a vector datatype (non-contiguous) for all-to-all
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(every_other, &lb, &extent);
  const Bytes send = pattern(static_cast<std::size_t>(s * extent), world_rank + 11);
  compare("Neighbor_alltoall vector datatype " + name, static_cast<std::size_t>(s * extent),
          [&](unsigned char* r, bool native) {
            (native ? PMPI_Neighbor_alltoall : MPI_Neighbor_alltoall)(send.data(), 1, every_other, r, 1, every_other, comm);
          },
          comm);
  MPI_Type_free(&every_other);
}

void cartesian(std::vector<int> dims, int periodic, const std::string& name) {
  std::vector<int> periods(dims.size(), periodic);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), 0, &cart);
  if (cart != MPI_COMM_NULL) {
    neighborhood(cart, name);
    MPI_Comm_free(&cart);
  }
}

void ring_graph(const std::vector<int>& offsets, const std::string& name) {
  std::vector<int> dst, src;
  for (int c : offsets) {
    dst.push_back(((world_rank + c) % world_size + world_size) % world_size);
    src.push_back(((world_rank - c) % world_size + world_size) % world_size);
  }
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(src.size()), src.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(dst.size()), dst.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  neighborhood(graph, name);
  MPI_Comm_free(&graph);
}

// Not isomorphic (rank 0 has an extra out-edge to rank 2): every call passes through.
void irregular_graph() {
  const int n = world_size;
  std::vector<int> dst{(world_rank + 1) % n}, src{(world_rank - 1 + n) % n};
  if (world_rank == 0) dst.push_back(2);
  if (world_rank == 2) src.push_back(0);
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(src.size()), src.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(dst.size()), dst.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  const Bytes send = pattern(16, world_rank);
  compare("Neighbor_allgather irregular graph", 16 * src.size(),
          [&](unsigned char* r, bool native) {
            (native ? PMPI_Neighbor_allgather : MPI_Neighbor_allgather)(send.data(), 16, MPI_BYTE, r, 16, MPI_BYTE, graph);
          },
          graph);
  MPI_Comm_free(&graph);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  for (int p = 1; p < world_size; ++p) intergroup(p);
  if (world_size >= 3) cartesian({world_size}, 1, "ring");
  if (world_size >= 3) cartesian({world_size}, 0, "line (not periodic)");
  if (world_size == 9) cartesian({3, 3}, 1, "3x3 torus");
  if (world_size >= 5) ring_graph({1, 2, -1}, "graph {+1,+2,-1}");
  if (world_size >= 3) ring_graph({0, 1}, "graph {0,+1}");
  if (world_size >= 3) irregular_graph();
  if (world_rank == 0) std::printf("transparency: %ld calls equal\n", checked);
  MPI_Finalize();
  return 0;
}

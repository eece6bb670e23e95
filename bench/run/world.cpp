#include "run/world.hpp"

#include <utility>

#include "collrepro/mpi.hpp"

namespace collbench {

using collrepro::check;

int world_rank() {
  int r = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &r), "MPI_Comm_rank");
  return r;
}

std::string bcast_string(std::string s) {
  int len = static_cast<int>(s.size());
  check(MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  s.resize(static_cast<std::size_t>(len));
  if (len > 0) check(MPI_Bcast(s.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return s;
}

std::vector<std::string> gather_strings(const std::string& mine) {
  int size = 0, rank = world_rank();
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int total = 0;
  for (int i = 0; i < size; ++i) displs[static_cast<std::size_t>(i)] = std::exchange(total, total + lens[static_cast<std::size_t>(i)]);
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank == 0)
    for (int i = 0; i < size; ++i)
      out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(i)]),
                               static_cast<std::size_t>(lens[static_cast<std::size_t>(i)])));
  return out;
}

}  // namespace collbench

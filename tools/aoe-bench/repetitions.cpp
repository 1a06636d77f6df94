#include "repetitions.hpp"

#include <utility>

#if defined(AOE_WITH_MPI)
#include <aoe/mpi/spread_repetitions.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#endif

namespace aoe_bench {

#if defined(AOE_WITH_MPI)

struct MpiRepetitions::Impl {
  Impl(int& argc, char**& argv) : env(argc, argv) {}
  boost::mpi::environment env;
  boost::mpi::communicator world;
};

std::unique_ptr<MpiRepetitions> MpiRepetitions::start(int& argc, char**& argv) {
  return std::unique_ptr<MpiRepetitions>(new MpiRepetitions(std::make_unique<Impl>(argc, argv)));
}

int MpiRepetitions::rank() const { return impl_->world.rank(); }
int MpiRepetitions::size() const { return impl_->world.size(); }

aoe::experiment::RepetitionRunner MpiRepetitions::runner() const {
  const int ranks = impl_->world.size();
  // Where the repetitions ran, on stderr (the results do not depend on it).
  return aoe::mpi::spread_repetitions(impl_->world, [ranks](std::span<const std::size_t> per_rank) {
    std::size_t count = 0;
    std::string counts;
    for (const std::size_t n : per_rank) {
      count += n;
      counts += (counts.empty() ? "" : ", ") + std::to_string(n);
    }
    std::fprintf(stderr, "aoe-bench: %zu repetitions on %d MPI ranks (per rank: %s)\n", count,
                 ranks, counts.c_str());
  });
}

#else

struct MpiRepetitions::Impl {};

std::unique_ptr<MpiRepetitions> MpiRepetitions::start(int& /*argc*/, char**& /*argv*/) {
  return nullptr;
}

int MpiRepetitions::rank() const { return 0; }
int MpiRepetitions::size() const { return 1; }
aoe::experiment::RepetitionRunner MpiRepetitions::runner() const { return {}; }

#endif

MpiRepetitions::MpiRepetitions(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MpiRepetitions::~MpiRepetitions() = default;

}  // namespace aoe_bench

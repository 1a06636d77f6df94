#include "repetitions.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#if defined(AOE_WITH_MPI)
#include <aoe/mpi/work_queue.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/vector.hpp>

#include <span>

namespace boost::serialization {

// A repetition crosses the wire whole: its curve (infinities included), its evaluations and
// its trace (empty unless Settings::traces), configurations included.
template <class Archive>
void serialize(Archive& ar, aoe::experiment::Repetition& r, const unsigned int /*version*/) {
  ar& r.curve;
  ar& r.evaluations;
  ar& r.trace.values;
  ar& r.trace.costs;
  ar& r.trace.seconds;
  ar& r.trace.configurations;
  ar& r.rank;
}

}  // namespace boost::serialization
#endif

namespace aoe_bench {

long launcher_ranks(std::string& variable) {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    if (std::string_view(name).starts_with("SLURM_") && std::getenv("SLURM_PROCID") == nullptr) {
      continue;  // a Slurm allocation, not a task srun started
    }
    const std::string_view text(value);
    long n = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && p == text.data() + text.size() && n > 1) {
      variable = std::string(name) + "=" + value;
      return n;
    }
  }
  return 1;
}

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
  const boost::mpi::communicator* world = &impl_->world;
  return
      [world](std::size_t count, const std::function<aoe::experiment::Repetition(std::size_t)>& one)
          -> aoe::Result<std::optional<std::vector<aoe::experiment::Repetition>>> {
        std::vector<std::uint64_t> tasks;
        if (world->rank() == 0) {
          tasks.resize(count);
          for (std::size_t j = 0; j < count; ++j) tasks[j] = j;
        }
        const auto results = aoe::mpi::distribute(
            *world, std::span<const std::uint64_t>(tasks), [&one, world](const std::uint64_t& j) {
              aoe::experiment::Repetition r = one(static_cast<std::size_t>(j));
              r.rank = world->rank();
              return r;
            });
        if (world->rank() != 0) return std::optional<std::vector<aoe::experiment::Repetition>>{};
        std::vector<aoe::experiment::Repetition> out;
        out.reserve(results.size());
        std::vector<std::size_t> per_rank(static_cast<std::size_t>(world->size()), 0);
        for (const auto& r : results) {
          if (!r) return r.error();
          out.push_back(*r);
          if (r->rank >= 0 && r->rank < world->size())
            ++per_rank[static_cast<std::size_t>(r->rank)];
        }
        // Where the repetitions ran, on stderr (the results do not depend on it).
        std::string counts;
        for (const std::size_t n : per_rank)
          counts += (counts.empty() ? "" : ", ") + std::to_string(n);
        std::fprintf(stderr, "aoe-bench: %zu repetitions on %d MPI ranks (per rank: %s)\n", count,
                     world->size(), counts.c_str());
        return std::optional<std::vector<aoe::experiment::Repetition>>(std::move(out));
      };
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

// aoe-bench under an MPI launcher (`mpirun -np N aoe-bench ...`, docs/distributed.md): the
// repetitions spread over the ranks (aoe::mpi::spread_repetitions), rank 0 summarises and
// writes. Boost.MPI is included by repetitions.cpp only, and only in builds with aoe::mpi.
#ifndef AOE_TOOLS_AOE_BENCH_REPETITIONS_HPP
#define AOE_TOOLS_AOE_BENCH_REPETITIONS_HPP

#include <aoe/experiment/settings.hpp>

#include <memory>

namespace aoe_bench {

/// MPI for as long as it lives (MPI_Init when made, MPI_Finalize when destroyed).
class MpiRepetitions {
 public:
  MpiRepetitions(const MpiRepetitions&) = delete;
  MpiRepetitions& operator=(const MpiRepetitions&) = delete;
  ~MpiRepetitions();

  /// Starts MPI; nullptr when this build has no aoe::mpi (Boost.MPI and MPI not found).
  [[nodiscard]] static std::unique_ptr<MpiRepetitions> start(int& argc, char**& argv);

  [[nodiscard]] int rank() const;
  [[nodiscard]] int size() const;

  /// aoe::mpi::spread_repetitions over MPI_COMM_WORLD, which says on stderr, on rank 0, how
  /// many repetitions each rank ran. Collective: every rank runs the same experiment.
  [[nodiscard]] aoe::experiment::RepetitionRunner runner() const;

 private:
  struct Impl;
  explicit MpiRepetitions(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_REPETITIONS_HPP

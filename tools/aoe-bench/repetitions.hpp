// aoe-bench under an MPI launcher (`mpirun -np N aoe-bench ...`, docs/distributed.md): the
// repetitions spread over the ranks with aoe::mpi's work queue, rank 0 summarises and writes.
// Boost.MPI is included by repetitions.cpp only, and only in builds with aoe::mpi.
#ifndef AOE_TOOLS_AOE_BENCH_REPETITIONS_HPP
#define AOE_TOOLS_AOE_BENCH_REPETITIONS_HPP

#include <aoe/experiment/settings.hpp>

#include <memory>
#include <string>

namespace aoe_bench {

/// How many ranks an MPI launcher started this process as, from the launcher's environment:
/// OMPI_COMM_WORLD_SIZE (Open MPI), PMI_SIZE (MPICH, Intel MPI), MV2_COMM_WORLD_SIZE
/// (MVAPICH2), SLURM_STEP_NUM_TASKS with SLURM_PROCID (a task started by srun); 1 when none did.
/// `variable` gets "NAME=value" of the variable that said so.
[[nodiscard]] long launcher_ranks(std::string& variable);

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

  /// Spreads the repetitions over the ranks, one at a time on each (rank 0 included): rank 0
  /// gets every repetition in index order (or the first, by index, that threw, naming its
  /// rank); the other ranks serve rank 0 and get an empty optional. Collective: every rank runs
  /// the same experiment.
  [[nodiscard]] aoe::experiment::RepetitionRunner runner() const;

 private:
  struct Impl;
  explicit MpiRepetitions(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_REPETITIONS_HPP

// What an MPI launcher tells a process it started, read from the launcher's environment before
// MPI starts: how many ranks, and which one this is (docs/distributed.md). Needs no MPI: a
// program built without aoe::mpi uses it to say that it was started as one of several ranks.
#ifndef AOE_CONFIG_LAUNCHER_HPP
#define AOE_CONFIG_LAUNCHER_HPP

#include "aoe/config/environment.hpp"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace aoe {

namespace detail {

/// `text` as a whole decimal number; nullopt when it is not one.
[[nodiscard]] inline std::optional<long> whole_number(std::string_view text) {
  long n = 0;
  const char* last = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), last, n);
  if (ec != std::errc() || p != last) return std::nullopt;
  return n;
}

}  // namespace detail

/// How many ranks an MPI launcher started this process as: OMPI_COMM_WORLD_SIZE (Open MPI's
/// mpirun), PMI_SIZE (MPICH's and Intel MPI's Hydra), MV2_COMM_WORLD_SIZE (MVAPICH2), or
/// SLURM_STEP_NUM_TASKS with SLURM_PROCID (a task that Slurm's srun started, not a Slurm
/// allocation); 1 when none did. `variable`, when given, gets "NAME=value" of the variable
/// that said so.
[[nodiscard]] inline long launcher_ranks(const GetEnv& getenv, std::string* variable = nullptr) {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const auto value = getenv(name);
    if (!value) continue;
    if (std::string_view(name).starts_with("SLURM_") && !getenv("SLURM_PROCID")) continue;
    if (const auto n = detail::whole_number(*value); n && *n > 1) {
      if (variable != nullptr) *variable = std::string(name) + "=" + *value;
      return *n;
    }
  }
  return 1;
}

/// This process's rank as the launcher numbers it: OMPI_COMM_WORLD_RANK, PMI_RANK,
/// MV2_COMM_WORLD_RANK or SLURM_PROCID; 0 when none did (so that only rank 0 prints what every
/// rank finds wrong before MPI starts).
[[nodiscard]] inline long launcher_rank(const GetEnv& getenv) {
  for (const char* name :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"}) {
    const auto value = getenv(name);
    if (!value) continue;
    if (const auto n = detail::whole_number(*value)) return *n;
  }
  return 0;
}

}  // namespace aoe

#endif  // AOE_CONFIG_LAUNCHER_HPP

// The node-local rank of an MPI rank: its place among the ranks that share its machine, for
// choosing one device per rank (docs/distributed.md#devices-per-rank).
#ifndef AOE_MPI_NODE_RANK_HPP
#define AOE_MPI_NODE_RANK_HPP

#include "aoe/core/error.hpp"

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <string>

namespace aoe::mpi {

/// A rank's place on its machine: `rank` in [0, `size`), `size` the ranks of `world` there.
struct NodeRank {
  int rank = 0;
  int size = 1;
};

/// The node-local rank of the calling rank of `world`, from MPI itself
/// (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), ordered by the rank in `world`) rather than from
/// a launcher's variables (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, ... differ between
/// launchers and are missing under some). Collective over `world`. Throws aoe::Error
/// (`device_error`) when MPI fails.
[[nodiscard]] inline NodeRank node_rank(const boost::mpi::communicator& world) {
  MPI_Comm shared = MPI_COMM_NULL;
  if (const int rc = MPI_Comm_split_type(static_cast<MPI_Comm>(world), MPI_COMM_TYPE_SHARED,
                                         world.rank(), MPI_INFO_NULL, &shared);
      rc != MPI_SUCCESS) {
    throw Error(Errc::device_error, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed with code " +
                                        std::to_string(rc) + " on rank " +
                                        std::to_string(world.rank()));
  }
  const boost::mpi::communicator node(shared, boost::mpi::comm_take_ownership);
  return {node.rank(), node.size()};
}

}  // namespace aoe::mpi

#endif  // AOE_MPI_NODE_RANK_HPP

// OpenAOE's distributed measurement (target aoe::mpi; docs/distributed.md): a measure policy
// that spreads a Tuner's batches over MPI ranks, and the work queue under it. Needs Boost.MPI
// and an MPI library (Debian: libboost-mpi1.81-dev, libopenmpi-dev, openmpi-bin).
#ifndef AOE_MPI_HPP
#define AOE_MPI_HPP

#include "aoe/mpi/mpi_measure.hpp"
#include "aoe/mpi/node_rank.hpp"
#include "aoe/mpi/work_queue.hpp"

#endif  // AOE_MPI_HPP

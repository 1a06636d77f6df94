// What the ranks of aoe::mpi send each other: a task with its index, a result (or the error the
// task raised) with the index it answers, and how a Measurement crosses the wire (Boost.MPI
// serialises through Boost.Serialization).
#ifndef AOE_MPI_DETAIL_WIRE_HPP
#define AOE_MPI_DETAIL_WIRE_HPP

#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/status.hpp"

#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <cstdint>
#include <string>

namespace aoe {

/// Boost.Serialization of a Measurement (found by argument-dependent lookup): every field, so
/// that a measurement made on a worker rank arrives on rank 0 exactly as it was made.
template <class Archive>
void serialize(Archive& ar, Measurement& m, const unsigned int /*version*/) {
  auto status = static_cast<std::uint8_t>(m.status);
  ar& status;
  m.status = static_cast<Status>(status);
  ar& m.value;
  ar& m.samples;
  ar& m.message;
  ar& m.cost;
  // The energy: a presence flag, then its fields (Boost 1.81 has no std::optional support).
  bool has_energy = m.energy.has_value();
  ar& has_energy;
  if (has_energy) {
    if (!m.energy) m.energy.emplace();
    auto kind = static_cast<std::uint8_t>(m.energy->kind);
    ar& m.energy->joules;
    ar& m.energy->watts;
    ar& kind;
    m.energy->kind = static_cast<TimingKind>(kind);
  } else {
    m.energy.reset();
  }
}

}  // namespace aoe

namespace aoe::mpi::detail {

/// Message tags on the work queue's own communicator (a duplicate of the user's: no clash with
/// the user's messages).
inline constexpr int tag_task = 1;
inline constexpr int tag_result = 2;
inline constexpr int tag_stop = 3;

/// Rank 0 -> worker: run `task`, the `index`-th of the current batch.
template <class Task>
struct TaskMessage {
  std::uint64_t index = 0;
  Task task{};

  template <class Archive>
  void serialize(Archive& ar, const unsigned int /*version*/) {
    ar& index;
    ar& task;
  }
};

/// Worker -> rank 0: the result of task `index`, or (`ok` false) the message of the exception
/// the task threw.
template <class R>
struct ResultMessage {
  std::uint64_t index = 0;
  bool ok = false;
  std::string error;
  R value{};

  template <class Archive>
  void serialize(Archive& ar, const unsigned int /*version*/) {
    ar& index;
    ar& ok;
    ar& error;
    if (ok) ar& value;
  }
};

}  // namespace aoe::mpi::detail

#endif  // AOE_MPI_DETAIL_WIRE_HPP

// How the jobs' tuning steps cross between MPI ranks (Boost.Serialization, found by
// argument-dependent lookup): the requests of OPAT, SGAT and GDAT and what a step hands back.
// Every field that the step or the accounting reads is sent, so that a step run on another
// rank is the step run in one process (docs/distributed.md).
#ifndef AOE_MPI_JOB_WIRE_HPP
#define AOE_MPI_JOB_WIRE_HPP

#include "aoe/jobs/gdat/gdat_job.hpp"
#include "aoe/jobs/job_skeleton.hpp"
#include "aoe/jobs/opat/opat_job.hpp"
#include "aoe/jobs/sgat/sgat_job.hpp"
#include "aoe/mpi/detail/wire.hpp"

#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>

#include <cstdint>
#include <memory>
#include <optional>

namespace aoe::mpi::detail {

/// An enumeration as its underlying integer.
template <class Archive, class E>
void serialize_enum(Archive& ar, E& e) {
  auto v = static_cast<std::underlying_type_t<E>>(e);
  ar& v;
  e = static_cast<E>(v);
}

/// A std::optional as a flag and the value.
template <class Archive, class T>
void serialize_optional(Archive& ar, std::optional<T>& o) {
  bool has = o.has_value();
  ar& has;
  if constexpr (Archive::is_loading::value) {
    if (has) {
      T v{};
      ar& v;
      o = std::move(v);
    } else {
      o.reset();
    }
  } else {
    if (has) ar&* o;
  }
}

/// A shared, immutable value (null allowed) sent by value.
template <class Archive, class T>
void serialize_shared(Archive& ar, std::shared_ptr<const T>& p) {
  bool has = p != nullptr;
  ar& has;
  if constexpr (Archive::is_loading::value) {
    if (has) {
      auto v = std::make_shared<T>();
      ar&* v;
      p = std::move(v);
    } else {
      p.reset();
    }
  } else {
    if (has) {
      T& v = const_cast<T&>(*p);  // saving only reads it
      ar& v;
    }
  }
}

}  // namespace aoe::mpi::detail

namespace aoe {

template <class Archive>
void serialize(Archive& ar, JobBudget& b, const unsigned int /*version*/) {
  ar& b.evaluations;
  ar& b.patience;
}

template <class Archive>
void serialize(Archive& ar, Trial& t, const unsigned int /*version*/) {
  ar& t.configuration;
  ar& t.measurement;
  ar& t.evaluation;
}

template <class Archive>
void serialize(Archive& ar, StepOutcome& o, const unsigned int /*version*/) {
  ar& o.history;
  mpi::detail::serialize_optional(ar, o.best_configuration);
  ar& o.best_value;
  ar& o.policy;
  ar& o.interrupted;
  ar& o.measured_first;
}

template <class Archive>
void serialize(Archive& ar, Feature& f, const unsigned int /*version*/) {
  ar& f.name;
  ar& f.value;
}

template <class Archive>
void serialize(Archive& ar, TransferData::Row& r, const unsigned int /*version*/) {
  ar& r.features;
  ar& r.target;
}

template <class Archive>
void serialize(Archive& ar, TransferData& d, const unsigned int /*version*/) {
  ar& d.rows;
  ar& d.winner_rows;
}

template <class Archive>
void serialize(Archive& ar, Objective& o, const unsigned int /*version*/) {
  mpi::detail::serialize_enum(ar, o.kind);
  ar& o.power_cap_watts;
  mpi::detail::serialize_enum(ar, o.pick);
}

template <class Archive>
void serialize(Archive& ar, OpatStepRequest& q, const unsigned int /*version*/) {
  ar& q.op;
  mpi::detail::serialize_enum(ar, q.kind);
  ar& q.search;
  ar& q.budget;
  ar& q.batch_size;
  ar& q.parallel;
  ar& q.seed;
  ar& q.seed_stored;
  ar& q.def;
  mpi::detail::serialize_optional(ar, q.stored);
  ar& q.tune;
  ar& q.hit_if_stored;
  ar& q.initial;
  ar& q.context;
  mpi::detail::serialize_shared(ar, q.prior);
  ar& q.measure_only;
  ar& q.objective;
}

template <class Archive>
void serialize(Archive& ar, SgatStepRequest& q, const unsigned int /*version*/) {
  ar& q.subgraph;
  ar& q.search;
  ar& q.budget;
  ar& q.batch_size;
  ar& q.parallel;
  ar& q.seed;
  ar& q.initial;
  ar& q.known;
  ar& q.nonhomo_split;
  ar& q.max_slices;
  ar& q.min_kernels;
  ar& q.max_kernels;
}

namespace gdat {

template <class Archive>
void serialize(Archive& ar, Gradient& g, const unsigned int /*version*/) {
  ar& g.name;
  ar& g.backward_seconds;
  ar& g.bytes;
}

template <class Archive>
void serialize(Archive& ar, GradientProfile& p, const unsigned int /*version*/) {
  ar& p.name;
  ar& p.forward_seconds;
  ar& p.backward_tail_seconds;
  ar& p.gradients;
}

template <class Archive>
void serialize(Archive& ar, Link& l, const unsigned int /*version*/) {
  ar& l.bandwidth;
  ar& l.latency;
}

template <class Archive>
void serialize(Archive& ar, Cluster& c, const unsigned int /*version*/) {
  ar& c.devices;
  ar& c.devices_per_server;
  mpi::detail::serialize_enum(ar, c.topology);
  ar& c.intra_server;
  ar& c.inter_server;
  ar& c.allreduce_overhead;
}

}  // namespace gdat

template <class Archive>
void serialize(Archive& ar, GdatContext& c, const unsigned int /*version*/) {
  ar& c.profile;
  ar& c.cluster;
  ar& c.max_segments;
}

template <class Archive>
void serialize(Archive& ar, GdatMeasureRequest& q, const unsigned int /*version*/) {
  mpi::detail::serialize_shared(ar, q.context);
  ar& q.batch;
}

}  // namespace aoe

#endif  // AOE_MPI_JOB_WIRE_HPP

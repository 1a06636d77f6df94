// What a tuning minimises: time (the default), energy, their product, time under a power cap,
// or the Pareto front of time and energy. docs/energy.md.
#ifndef AOE_VOCAB_OBJECTIVE_HPP
#define AOE_VOCAB_OBJECTIVE_HPP

#include "aoe/core/error.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// The quantity a tuning minimises.
enum class ObjectiveKind : std::uint8_t {
  time,    ///< seconds (the default; with a power cap: seconds of the configurations under it)
  energy,  ///< joules per run
  edp,     ///< the energy-delay product: joules x seconds
  pareto,  ///< the non-dominated set of (seconds, joules); a rule picks the one in use
};

/// Which configuration of a Pareto front is the one in use.
enum class FrontPick : std::uint8_t {
  fastest,       ///< the least time on the front
  least_energy,  ///< the least energy on the front
  knee,          ///< nearest the ideal point (least time, least energy), axes scaled to the front
};

[[nodiscard]] constexpr std::string_view to_string(ObjectiveKind k) noexcept {
  switch (k) {
    case ObjectiveKind::time: return "time";
    case ObjectiveKind::energy: return "energy";
    case ObjectiveKind::edp: return "edp";
    case ObjectiveKind::pareto: return "pareto";
  }
  return "time";
}

[[nodiscard]] constexpr std::string_view to_string(FrontPick p) noexcept {
  switch (p) {
    case FrontPick::fastest: return "fastest";
    case FrontPick::least_energy: return "least_energy";
    case FrontPick::knee: return "knee";
  }
  return "knee";
}

/// What `Objective::key_suffix` starts with: a key whose problem holds it is tuned for an
/// objective other than time.
inline constexpr std::string_view objective_key_marker = "#objective=";

/// An objective. Aggregate: `aoe::Objective{.kind = aoe::ObjectiveKind::energy}`. The default
/// (time, no cap) is the single-objective tuning of every earlier release: its files, keys and
/// records are unchanged.
struct Objective {
  ObjectiveKind kind = ObjectiveKind::time;
  /// Watts; with `time` or `pareto`, a configuration whose average power is above it is not
  /// eligible (0: no cap).
  double power_cap_watts = 0;
  FrontPick pick = FrontPick::knee;  ///< pareto: the configuration in use

  /// Whether measurements must carry their energy.
  [[nodiscard]] bool needs_energy() const noexcept {
    return kind != ObjectiveKind::time || power_cap_watts > 0;
  }
  /// Whether this is the plain time objective (no cap).
  [[nodiscard]] bool plain_time() const noexcept { return !needs_energy(); }

  /// "time", "energy", "edp", "pareto (knee)", with ", power cap 300 W" where there is one.
  [[nodiscard]] std::string label() const {
    std::string out(to_string(kind));
    if (kind == ObjectiveKind::pareto) out += " (" + std::string(to_string(pick)) + ")";
    if (power_cap_watts > 0) out += ", power cap " + format_watts(power_cap_watts) + " W";
    return out;
  }

  /// What a repository key carries so that records of different objectives never compete:
  /// empty for plain time, else "#objective=energy", "#objective=pareto:knee,cap=300W".
  [[nodiscard]] std::string key_suffix() const {
    if (plain_time()) return {};
    std::string out = std::string(objective_key_marker) + std::string(to_string(kind));
    if (kind == ObjectiveKind::pareto) out += ":" + std::string(to_string(pick));
    if (power_cap_watts > 0) out += ",cap=" + format_watts(power_cap_watts) + "W";
    return out;
  }

  friend bool operator==(const Objective&, const Objective&) = default;

 private:
  static std::string format_watts(double w) {
    std::string s = std::to_string(w);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
};

/// The kind a name gives ("time", "energy", "edp", "pareto"), or `Errc::invalid_argument`
/// naming `what` (a flag, a field) and the valid names.
[[nodiscard]] inline Result<ObjectiveKind> objective_kind_from(std::string_view name,
                                                               std::string_view what) {
  for (const auto k :
       {ObjectiveKind::time, ObjectiveKind::energy, ObjectiveKind::edp, ObjectiveKind::pareto}) {
    if (name == to_string(k)) return k;
  }
  return make_error(Errc::invalid_argument, std::string(what) + ": '" + std::string(name) +
                                                "' is not an objective; expected one of time, "
                                                "energy, edp, pareto");
}

/// The rule a name gives ("fastest", "least_energy", "knee"), or `Errc::invalid_argument`.
[[nodiscard]] inline Result<FrontPick> front_pick_from(std::string_view name,
                                                       std::string_view what) {
  for (const auto p : {FrontPick::fastest, FrontPick::least_energy, FrontPick::knee}) {
    if (name == to_string(p)) return p;
  }
  return make_error(Errc::invalid_argument, std::string(what) + ": '" + std::string(name) +
                                                "' is not a front rule; expected one of "
                                                "fastest, least_energy, knee");
}

/// Whether a valid measurement is eligible under `o`'s power cap (always without a cap).
[[nodiscard]] inline bool under_cap(const Measurement& m, const Objective& o) noexcept {
  return o.power_cap_watts <= 0 || (m.energy && m.energy->watts <= o.power_cap_watts);
}

/// The scalar a valid measurement scores under `o` (smaller is better; what a record of the
/// objective stores): seconds, joules, joules x seconds; for pareto, what its rule picks by
/// (fastest: seconds, least_energy: joules, knee: joules x seconds). None when the objective
/// needs energy and the measurement has none.
[[nodiscard]] inline std::optional<double> objective_score(const Measurement& m,
                                                           const Objective& o) noexcept {
  if (o.plain_time()) return m.value;
  if (!m.energy) return std::nullopt;
  switch (o.kind) {
    case ObjectiveKind::time: return m.value;
    case ObjectiveKind::energy: return m.energy->joules;
    case ObjectiveKind::edp: return m.energy->joules * m.value;
    case ObjectiveKind::pareto:
      if (o.pick == FrontPick::fastest) return m.value;
      if (o.pick == FrontPick::least_energy) return m.energy->joules;
      return m.energy->joules * m.value;
  }
  return m.value;
}

/// The value a scalarising search policy is shown for a valid measurement: its score (for
/// pareto, whatever the rule, the energy-delay product, whose minimum is on the front), and
/// for a configuration over the power cap, that times how far over it is (a configuration
/// drawing 20 % over the cap looks 20 % worse), so that the search moves towards the cap.
[[nodiscard]] inline double policy_value(const Measurement& m, const Objective& o, double score) {
  if (o.kind == ObjectiveKind::pareto && m.energy) score = m.energy->joules * m.value;
  if (o.power_cap_watts > 0 && m.energy && m.energy->watts > o.power_cap_watts) {
    return score * (m.energy->watts / o.power_cap_watts);
  }
  return score;
}

/// Whether (t1, e1) dominates (t2, e2): no worse in both, better in one.
[[nodiscard]] constexpr bool dominates(double t1, double e1, double t2, double e2) noexcept {
  return t1 <= t2 && e1 <= e2 && (t1 < t2 || e1 < e2);
}

/// One point of a time-energy front: seconds, joules, and which trial (an index the caller
/// gives meaning to).
struct FrontPoint {
  double seconds = 0;
  double joules = 0;
  std::size_t index = 0;
  friend bool operator==(const FrontPoint&, const FrontPoint&) = default;
};

/// Adds a point to a front kept sorted by time: returns false (front unchanged) when a point
/// of the front dominates it or equals it; otherwise inserts it and drops what it dominates.
inline bool add_to_front(std::vector<FrontPoint>& front, const FrontPoint& p) {
  for (const auto& q : front) {
    if (dominates(q.seconds, q.joules, p.seconds, p.joules) ||
        (q.seconds == p.seconds && q.joules == p.joules)) {
      return false;
    }
  }
  std::erase_if(front, [&](const FrontPoint& q) {
    return dominates(p.seconds, p.joules, q.seconds, q.joules);
  });
  auto at = front.begin();
  while (at != front.end() && at->seconds < p.seconds) ++at;
  front.insert(at, p);
  return true;
}

/// The point of a non-empty front (sorted by time) that `rule` picks. The knee: the point
/// nearest the ideal point (the front's least time, its least energy), each axis divided by the
/// front's range along it; a front of one point is that point. Ties: the faster.
[[nodiscard]] inline std::size_t pick_from_front(std::span<const FrontPoint> front,
                                                 FrontPick rule) noexcept {
  if (front.empty()) return 0;
  if (rule == FrontPick::fastest) return 0;
  if (rule == FrontPick::least_energy) return front.size() - 1;
  const double t0 = front.front().seconds, t1 = front.back().seconds;
  const double e0 = front.back().joules, e1 = front.front().joules;
  const double dt = t1 > t0 ? t1 - t0 : 1, de = e1 > e0 ? e1 - e0 : 1;
  std::size_t best = 0;
  double nearest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < front.size(); ++i) {
    const double x = (front[i].seconds - t0) / dt, y = (front[i].joules - e0) / de;
    const double d = std::hypot(x, y);
    if (d < nearest) {
      nearest = d;
      best = i;
    }
  }
  return best;
}

/// The area a time-energy front dominates up to `reference` (seconds, joules): the exact
/// two-dimensional hypervolume, by a sweep over the points sorted by time (each point that
/// lowers the least energy so far adds the band from its energy up to that, from its time on).
/// Points at or beyond the reference along either axis add nothing; the points need not be a front
/// (dominated ones add nothing either).
[[nodiscard]] inline double front_hypervolume(std::span<const FrontPoint> points,
                                              FrontPoint reference) {
  std::vector<FrontPoint> inside;
  for (const auto& p : points) {
    if (p.seconds < reference.seconds && p.joules < reference.joules) inside.push_back(p);
  }
  std::sort(inside.begin(), inside.end(), [](const FrontPoint& a, const FrontPoint& b) {
    return a.seconds < b.seconds || (a.seconds == b.seconds && a.joules < b.joules);
  });
  double area = 0;
  double ceiling = reference.joules;  // the least energy of the points swept so far
  for (std::size_t i = 0; i < inside.size(); ++i) {
    if (inside[i].joules >= ceiling) continue;
    // Between this point's energy and the ceiling, the dominated region starts at its time.
    area += (reference.seconds - inside[i].seconds) * (ceiling - inside[i].joules);
    ceiling = inside[i].joules;
  }
  return area;
}

}  // namespace aoe

#endif  // AOE_VOCAB_OBJECTIVE_HPP

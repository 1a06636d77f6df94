// A recorded tuning space: every measured configuration of a brute-forced (or partial) run,
// with the space rebuilt from it. What Runner<device::Replay> replays and aoe-bench scores.
#ifndef AOE_MEASURE_REPLAY_RECORDING_HPP
#define AOE_MEASURE_REPLAY_RECORDING_HPP

#include "aoe/core/assert.hpp"
#include "aoe/measure/replay/random_baseline.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/status.hpp"
#include "aoe/vocab/timing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe::replay {

/// One recorded configuration. Times are in seconds (Kernel Tuner records milliseconds).
struct RecordedEntry {
  Status status = Status::correct;
  /// The objective (minimised): seconds for time objectives; infinity when it failed.
  double value = std::numeric_limits<double>::infinity();
  std::vector<double> samples;      ///< the individual runs (`times`, T4 `runtimes`), seconds
  double compile_seconds = 0;       ///< `compile_time` (T4: `times.compilation_time`)
  double verification_seconds = 0;  ///< `verification_time` (T4: `times.validation`)
  /// `benchmark_time` when recorded: the time the device spent on the timed runs.
  std::optional<double> benchmark_seconds;
  std::string marker;  ///< the error marker as recorded ("RuntimeFailedConfig"), if it failed
  /// Energy per run and average power where recorded (Kernel Tuner: `energy`/`power`,
  /// `nvml_energy`/`nvml_power`, `ps_energy`/`ps_power`); its kind is the recording's.
  std::optional<Energy> energy;
};

/// A recorded space. The parameters come from the file (Kernel Tuner: `tune_params`, in
/// `tune_params_keys` order); the one constraint of the space is "recorded in the file":
/// configurations absent from it are not part of the space (Kernel Tuner's convention, where
/// they violated the kernel's restrictions), so a search policy never proposes them.
class Recording {
 public:
  Recording() = default;

  /// Builds the space over `parameters`; then call `add` once per recorded configuration.
  Recording(std::string name, std::string path, std::vector<Parameter> parameters)
      : name_(std::move(name)), path_(std::move(path)), lookup_(std::make_shared<Lookup>()) {
    lookup_->parameters = parameters;
    std::vector<std::string> names;
    for (const auto& p : parameters) names.push_back(p.name());
    // The predicate shares the lookup table, so a Recording stays movable.
    std::shared_ptr<const Lookup> lookup = lookup_;
    std::vector<Constraint> constraints;
    if (!parameters.empty()) {
      constraints.push_back(predicate(
          names, [lookup](std::span<const double> numeric) { return lookup->contains(numeric); },
          "recorded in " + path_));
    }
    space_ = Space(std::move(parameters), std::move(constraints));
  }

  Recording(Recording&&) noexcept = default;
  Recording& operator=(Recording&&) noexcept = default;
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  /// Adds a configuration; false if it was recorded already (the first record is kept).
  bool add(const Configuration& c, RecordedEntry entry) {
    AOE_ASSERT(space_.in_bounds(c), "Recording::add: configuration out of the space's bounds");
    const auto [it, fresh] = lookup_->index.emplace(c, entries_.size());
    if (!fresh) return false;
    configurations_.push_back(c);
    entries_.push_back(std::move(entry));
    const std::lock_guard<std::mutex> lock(*mutex_);
    baseline_.reset();
    return true;
  }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const Space& space() const noexcept { return space_; }
  std::string device;     ///< device name as recorded, if any
  std::string kernel;     ///< kernel name as recorded, if any
  std::string objective;  ///< objective as recorded ("time")
  /// Whether the recorded energies are a model's or a device's (a cache's `energy_kind`;
  /// observers' fields, `nvml_energy` and `ps_energy`, are measured).
  TimingKind energy_kind = TimingKind::measured;

  /// The recorded entry of a configuration, or nullptr if it is not recorded.
  [[nodiscard]] const RecordedEntry* find(const Configuration& c) const {
    const auto it = lookup_->index.find(c);
    return it == lookup_->index.end() ? nullptr : &entries_[it->second];
  }

  /// Recorded configurations (the space's valid points), failed ones included.
  [[nodiscard]] std::size_t configurations() const noexcept { return entries_.size(); }
  /// Recorded configurations measured with status `correct`.
  [[nodiscard]] std::size_t valid_configurations() const noexcept {
    return static_cast<std::size_t>(
        std::count_if(entries_.begin(), entries_.end(),
                      [](const auto& e) { return e.status == Status::correct; }));
  }
  [[nodiscard]] const std::vector<Configuration>& recorded() const noexcept {
    return configurations_;
  }
  [[nodiscard]] const std::vector<RecordedEntry>& entries() const noexcept { return entries_; }

  /// The best recorded value (infinity if nothing is valid).
  [[nodiscard]] double optimum() const { return baseline().optimum(); }
  /// The best recorded configuration (the first recorded among ties), if any is valid.
  [[nodiscard]] std::optional<Configuration> optimum_configuration() const {
    std::optional<Configuration> best;
    double v = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].status == Status::correct && entries_[i].value < v) {
        v = entries_[i].value;
        best = configurations_[i];
      }
    }
    return best;
  }
  /// The median of the valid values (the mean of the two middle ones for an even count, as
  /// numpy.median, which the methodology package uses).
  [[nodiscard]] double median() const {
    const auto& s = baseline().sorted_values();
    if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
    const std::size_t m = s.size() / 2;
    return s.size() % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  /// Random search without replacement over the recorded configurations (failed ones
  /// included as evaluations that find nothing): exact expectations, see RandomBaseline.
  /// Thread-safe: built once, on first use after the last `add`.
  [[nodiscard]] const RandomBaseline& baseline() const {
    const std::lock_guard<std::mutex> lock(*mutex_);
    if (!baseline_) {
      std::vector<double> values;
      for (const auto& e : entries_) {
        if (e.status == Status::correct) values.push_back(e.value);
      }
      baseline_ = std::make_shared<const RandomBaseline>(std::move(values), entries_.size());
    }
    return *baseline_;
  }
  /// Expected best value of random search after k evaluations (see RandomBaseline).
  [[nodiscard]] double expected_random_best(std::size_t k) const {
    return baseline().expected_best(k);
  }
  /// Expected fraction of the optimum of random search after k evaluations.
  [[nodiscard]] double expected_random_fraction(std::size_t k) const {
    return baseline().expected_fraction(k);
  }

 private:
  struct Lookup {
    std::vector<Parameter> parameters;
    std::unordered_map<Configuration, std::size_t, ConfigurationHash> index;

    // Numeric values (Parameter::numeric) back to indices; parameters are small lists.
    [[nodiscard]] bool contains(std::span<const double> numeric) const {
      Configuration c(numeric.size());
      for (std::size_t d = 0; d < numeric.size(); ++d) {
        const auto& p = parameters[d];
        bool found = false;
        for (std::uint32_t i = 0; i < p.size(); ++i) {
          if (p.numeric(i) == numeric[d]) {
            c[d] = i;
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return index.find(c) != index.end();
    }
  };

  std::string name_;
  std::string path_;
  std::shared_ptr<Lookup> lookup_;
  Space space_;
  std::vector<Configuration> configurations_;
  std::vector<RecordedEntry> entries_;
  mutable std::shared_ptr<const RandomBaseline> baseline_;
  std::shared_ptr<std::mutex> mutex_ = std::make_shared<std::mutex>();
};

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_RECORDING_HPP

// What a model-based search learns from beyond its own trials (docs/search.md#transfer): the
// features of the problem it tunes and the trials of problems tuned before it, as rows of named
// features with a normalised target. A learned cost model (search/xgboost/) trains on them
// together with the run's own trials; the core itself needs no model.
#ifndef AOE_SEARCH_TRANSFER_DATA_HPP
#define AOE_SEARCH_TRANSFER_DATA_HPP

#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/trial.hpp"

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

/// Rows of transfer data a learned cost model trains on at most (the latest ones): bounds a
/// fit's cost (`XGBoostOptions::max_transfer_rows`).
inline constexpr std::size_t transfer_rows_used = 3000;

/// One named feature of a problem or a configuration.
struct Feature {
  std::string name;
  double value = 0;
};

/// Trials of earlier problems as training rows. A job appends an operator's trials only after
/// its search ended, and operators in a fixed order, so what a search learns from others does
/// not depend on timing, threads or ranks. `target` is log(value) minus the mean log(value) of
/// that problem's correct trials (the problem's scale removed, its ranking kept); a failed
/// trial's is the problem's worst target plus log 2.
struct TransferData {
  struct Row {
    std::vector<Feature> features;
    double target = 0;
  };
  std::vector<Row> rows;
  /// How many of `rows` are a record's winner alone (a bank record: its operator's best, not
  /// the configurations it was compared with), with a fixed target: they say where winners
  /// lie but rank nothing, so a search does not shorten its initial design for them.
  std::size_t winner_rows = 0;
};

/// The features of configuration `c` of `space`: per parameter "p.<name>", log2 of a positive
/// numeric level (tile sizes, block counts: their ratios matter), else the number itself, else
/// (text) the level's index.
[[nodiscard]] inline std::vector<Feature> configuration_features(const Space& space,
                                                                 const Configuration& c) {
  std::vector<Feature> out;
  out.reserve(c.size());
  for (std::size_t d = 0; d < c.size(); ++d) {
    const Parameter& p = space.parameter(d);
    const Value& v = p.level(c[d]);
    double x = static_cast<double>(c[d]);
    if (v.is_number()) x = v.as_real() > 0 ? std::log2(v.as_real()) : v.as_real();
    out.push_back({"p." + p.name(), x});
  }
  return out;
}

/// The normalised targets of `history` (see TransferData), in order.
[[nodiscard]] inline std::vector<double> normalised_targets(std::span<const Trial> history) {
  std::vector<double> y(history.size(), 0);
  double sum = 0;
  double worst = -HUGE_VAL;
  std::size_t ok = 0;
  for (const auto& t : history) {
    if (t.measurement.ok() && t.measurement.value > 0) {
      sum += std::log(t.measurement.value);
      ++ok;
    }
  }
  const double mean = ok ? sum / static_cast<double>(ok) : 0;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& m = history[i].measurement;
    if (m.ok() && m.value > 0) {
      y[i] = std::log(m.value) - mean;
      worst = std::max(worst, y[i]);
    }
  }
  if (worst == -HUGE_VAL) worst = 0;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& m = history[i].measurement;
    if (!(m.ok() && m.value > 0)) y[i] = worst + std::log(2.0);
  }
  return y;
}

/// Appends the trials of one problem (its `context` features, its `space`) to `data`.
inline void append_trials(TransferData& data, std::span<const Feature> context, const Space& space,
                          std::span<const Trial> history) {
  const auto y = normalised_targets(history);
  for (std::size_t i = 0; i < history.size(); ++i) {
    TransferData::Row row;
    row.features.assign(context.begin(), context.end());
    for (auto& f : configuration_features(space, history[i].configuration)) {
      row.features.push_back(std::move(f));
    }
    row.target = y[i];
    data.rows.push_back(std::move(row));
  }
}

}  // namespace aoe

#endif  // AOE_SEARCH_TRANSFER_DATA_HPP

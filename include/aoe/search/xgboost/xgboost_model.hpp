// A learned cost model: gradient-boosted regression trees (Chen and Guestrin, "XGBoost: a
// scalable tree boosting system", KDD 2016) through XGBoost's C API, as TVM's Ansor and
// MetaSchedule use it to decide what is worth measuring (Zheng et al., OSDI 2020). Models
// `aoe::cost_model`. Part of the optional component aoe::xgboost (Debian: libxgboost-dev).
#ifndef AOE_SEARCH_XGBOOST_XGBOOST_MODEL_HPP
#define AOE_SEARCH_XGBOOST_XGBOOST_MODEL_HPP

#include "aoe/search/transfer_data.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <xgboost/c_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// Options of the tree model. Deterministic: one thread, a fixed seed.
struct XGBoostOptions {
  std::size_t rounds = 40;  ///< boosting rounds (trees)
  int max_depth = 6;        ///< depth of each tree
  double eta = 0.3;         ///< learning rate
  double subsample = 1.0;   ///< rows per tree (1: all, so no randomness)
  std::uint64_t seed = 0;   ///< XGBoost's seed
  /// Rows of the transfer data used at most (the latest ones): bounds a fit's cost.
  std::size_t max_transfer_rows = transfer_rows_used;
};

/// Boosted trees over named features: the problem's `context` (operator type, shapes, dtype,
/// format, SoC) and the configuration's (`configuration_features`). `fit` trains on the run's
/// trials plus the rows of `prior` (earlier problems), so that what was learned on one
/// operator ranks the next one's candidates from its first proposal; the target is
/// `normalised_targets` (log time, per problem centred). `predict` gives the mean; the
/// variance is 0 (one model, no ensemble). Until the first `fit` with data it predicts 0 for
/// everything (no ranking). An XGBoost failure (out of memory) throws std::runtime_error with
/// XGBoost's message: it is an environment failure, not a configuration's.
class XGBoostModel {
 public:
  /// The name of `Evolutionary<XGBoostModel>` (a policy's name is its results' provenance).
  static constexpr std::string_view evolutionary_name = "evolutionary-xgboost";

  XGBoostModel() = default;
  explicit XGBoostModel(XGBoostOptions options, std::vector<Feature> context = {},
                        std::shared_ptr<const TransferData> prior = {})
      : options_(options), context_(std::move(context)), prior_(std::move(prior)) {}

  XGBoostModel(XGBoostModel&&) noexcept = default;
  XGBoostModel& operator=(XGBoostModel&&) noexcept = default;

  void fit(SpaceView view, std::span<const Trial> history) {
    view_ = view;
    columns_.clear();
    booster_.reset();
    std::vector<const TransferData::Row*> prior_rows;
    if (prior_) {
      const std::size_t n = prior_->rows.size();
      const std::size_t from = n > options_.max_transfer_rows ? n - options_.max_transfer_rows : 0;
      for (std::size_t i = from; i < n; ++i) prior_rows.push_back(&prior_->rows[i]);
    }
    if (history.empty() && prior_rows.empty()) return;
    for (const auto& f : context_) column(f.name);
    for (std::size_t d = 0; d < view->dimensions(); ++d) column("p." + view->parameter(d).name());
    for (const auto* r : prior_rows) {
      for (const auto& f : r->features) column(f.name);
    }
    const std::size_t cols = columns_.size();
    const std::size_t rows = prior_rows.size() + history.size();
    std::vector<float> x(rows * cols, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> y(rows, 0);
    std::size_t r = 0;
    for (const auto* row : prior_rows) {
      for (const auto& f : row->features) x[r * cols + columns_.at(f.name)] = to_float(f.value);
      y[r++] = to_float(row->target);
    }
    const auto targets = normalised_targets(history);
    for (std::size_t i = 0; i < history.size(); ++i, ++r) {
      fill_row(history[i].configuration, &x[r * cols]);
      y[r] = to_float(targets[i]);
    }
    Matrix train = make_matrix(x, rows, cols);
    check(XGDMatrixSetFloatInfo(train.get(), "label", y.data(), rows));
    BoosterHandle raw = nullptr;
    DMatrixHandle handles[] = {train.get()};
    check(XGBoosterCreate(handles, 1, &raw));
    booster_.reset(raw);
    const auto set = [&](const char* k, const std::string& v) {
      check(XGBoosterSetParam(raw, k, v.c_str()));
    };
    set("nthread", "1");
    set("seed", std::to_string(options_.seed % 2147483647U));  // XGBoost reads a signed int
    set("max_depth", std::to_string(options_.max_depth));
    set("eta", std::to_string(options_.eta));
    set("subsample", std::to_string(options_.subsample));
    set("objective", "reg:squarederror");
    set("tree_method", "exact");
    set("verbosity", "0");
    for (std::size_t it = 0; it < options_.rounds; ++it) {
      check(XGBoosterUpdateOneIter(raw, static_cast<int>(it), train.get()));
    }
  }

  [[nodiscard]] std::vector<Prediction> predict(std::span<const Configuration> queries) const {
    std::vector<Prediction> out(queries.size());
    if (!booster_ || queries.empty()) return out;
    const std::size_t cols = columns_.size();
    std::vector<float> x(queries.size() * cols, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t i = 0; i < queries.size(); ++i) fill_row(queries[i], &x[i * cols]);
    Matrix m = make_matrix(x, queries.size(), cols);
    bst_ulong len = 0;
    const float* result = nullptr;
    check(XGBoosterPredict(booster_.get(), m.get(), 0, 0, 0, &len, &result));
    for (std::size_t i = 0; i < queries.size() && i < len; ++i) out[i].mean = result[i];
    return out;
  }

  [[nodiscard]] const XGBoostOptions& options() const noexcept { return options_; }

 private:
  struct FreeMatrix {
    void operator()(void* h) const noexcept { XGDMatrixFree(h); }
  };
  struct FreeBooster {
    void operator()(void* h) const noexcept { XGBoosterFree(h); }
  };
  using Matrix = std::unique_ptr<void, FreeMatrix>;

  static float to_float(double v) { return static_cast<float>(v); }

  static void check(int rc) {
    if (rc != 0) throw std::runtime_error(std::string("XGBoost: ") + XGBGetLastError());
  }

  static Matrix make_matrix(const std::vector<float>& x, std::size_t rows, std::size_t cols) {
    DMatrixHandle h = nullptr;
    check(
        XGDMatrixCreateFromMat(x.data(), rows, cols, std::numeric_limits<float>::quiet_NaN(), &h));
    return Matrix(h);
  }

  std::size_t column(const std::string& name) {
    return columns_.try_emplace(name, columns_.size()).first->second;
  }

  void fill_row(const Configuration& c, float* row) const {
    for (const auto& f : context_) row[columns_.at(f.name)] = to_float(f.value);
    for (const auto& f : configuration_features(view_.space(), c)) {
      if (const auto it = columns_.find(f.name); it != columns_.end()) {
        row[it->second] = to_float(f.value);
      }
    }
  }

  XGBoostOptions options_;
  std::vector<Feature> context_;
  std::shared_ptr<const TransferData> prior_;
  SpaceView view_;
  std::map<std::string, std::size_t> columns_;
  std::unique_ptr<void, FreeBooster> booster_;
};

static_assert(cost_model<XGBoostModel>);

}  // namespace aoe

#endif  // AOE_SEARCH_XGBOOST_XGBOOST_MODEL_HPP

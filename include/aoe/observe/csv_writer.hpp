// aoe::CsvWriter: an observer that writes every trial to a CSV file as the run makes it (one row
// per trial, the parameters as columns; the same columns as aoe::TrialTable), so that a run can
// be watched, or studied after a crash, with any CSV reader.
#ifndef AOE_OBSERVE_CSV_WRITER_HPP
#define AOE_OBSERVE_CSV_WRITER_HPP

#include "aoe/core/error.hpp"
#include "aoe/export/json_text.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/value.hpp"
#include "aoe/tuner/tuning_result.hpp"
#include "aoe/vocab/status.hpp"
#include "aoe/vocab/trial.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace aoe {

/// Writes `evaluation, <parameters...>, status, value, cost, started, finished, samples,
/// message` rows to a file, flushed after each batch. `open` is non-throwing; the constructor
/// throws `aoe::Error` naming the file. A write that fails later is kept in `error()`.
class CsvWriter {
 public:
  [[nodiscard]] static Result<CsvWriter> open(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
      return make_error(Errc::io_error, "cannot open '" + path + "' for writing");
    }
    CsvWriter w;
    w.file_.reset(f);
    w.path_ = path;
    return w;
  }
  explicit CsvWriter(const std::string& path) : CsvWriter(open(path).value()) {}

  void on_start(SpaceView view, const TuningState&) {
    space_ = &view.space();
    std::string line = "evaluation";
    for (const auto& p : space_->parameters()) {
      line += ',';
      detail::append_csv_field(line, p.name());
    }
    line += ",status,value,cost,started,finished,samples,message\n";
    write(line);
  }

  void on_measurement(const Trial& t, const TuningState&) {
    std::string line = std::to_string(t.evaluation);
    for (std::size_t d = 0; d < t.configuration.size(); ++d) {
      line += ',';
      detail::append_csv_field(line, space_->value(t.configuration, d).to_string());
    }
    line += ',';
    line += to_string(t.measurement.status);
    line += ',';
    if (std::isfinite(t.measurement.value)) line += Value(t.measurement.value).to_string();
    for (const double x : {t.measurement.cost, t.started, t.finished}) {
      line += ',';
      line += Value(x).to_string();
    }
    line += ',';
    std::string samples;
    for (const double x : t.measurement.samples) {
      if (!samples.empty()) samples += ' ';
      samples += Value(x).to_string();
    }
    line += samples;
    line += ',';
    detail::append_csv_field(line, t.measurement.message);
    line += '\n';
    write(line);
  }

  void on_batch(std::span<const Trial>, const TuningState&) {
    if (file_ && std::fflush(file_.get()) != 0) fail();
  }

  void on_finish(const TuningResult&) { on_batch({}, {}); }

  /// The first write error, naming the file; nullopt while all is well.
  [[nodiscard]] const std::optional<ErrorInfo>& error() const noexcept { return error_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  CsvWriter() = default;

  void write(const std::string& line) {
    if (!file_ || error_) return;
    if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size()) fail();
  }
  void fail() {
    if (!error_) error_ = make_error(Errc::io_error, "cannot write '" + path_ + "'");
  }

  struct Close {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Close> file_;
  std::string path_;
  const Space* space_ = nullptr;
  std::optional<ErrorInfo> error_;
};

}  // namespace aoe

#endif  // AOE_OBSERVE_CSV_WRITER_HPP

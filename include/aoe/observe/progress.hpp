// aoe::Progress: an observer that shows a run's progress. On a terminal it redraws one line (a
// bar when the budget is known); otherwise (a log file, CI) it prints a line every N trials.
//   tuner.tune(space, aoe::MaxEvaluations{200}, aoe::Progress{{.total = 200}});
#ifndef AOE_OBSERVE_PROGRESS_HPP
#define AOE_OBSERVE_PROGRESS_HPP

#include "aoe/space/space.hpp"
#include "aoe/tuner/tuning_result.hpp"
#include "aoe/vocab/trial.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace aoe {

/// Options of `Progress`. Aggregate: `aoe::Progress{{.total = 200, .every = 50}}`.
struct ProgressOptions {
  std::FILE* out = stderr;  ///< where to write; never closed
  std::size_t total = 0;    ///< the evaluation budget, for the bar and the estimate (0: unknown)
  std::size_t every = 10;   ///< not a terminal: a line every this many trials (0: only the end)
  /// Terminal or not: detected with isatty(); `force_lines` prints lines on a terminal too.
  bool force_lines = false;
  const char* label = "aoe";  ///< the line's prefix
};

/// Shows evaluations done (of the total when known), the best value, elapsed wall time and,
/// with a total, the estimated time remaining. Writes to `out` only; never stops a run.
class Progress {
 public:
  explicit Progress(ProgressOptions options = {}) : options_(options) {}

  void on_start(SpaceView, const TuningState&) {
    started_ = Clock::now();
    terminal_ = !options_.force_lines && ::isatty(::fileno(options_.out)) == 1;
    last_draw_ = {};
  }

  void on_measurement(const Trial&, const TuningState& state) {
    if (terminal_) {
      // At most 20 redraws a second: a terminal is slower than a fast measure policy.
      const auto now = Clock::now();
      if (now - last_draw_ < std::chrono::milliseconds(50) && state.evaluations != options_.total) {
        return;
      }
      last_draw_ = now;
      std::fprintf(options_.out, "\r%s\033[K", line(state).c_str());
      std::fflush(options_.out);
    } else if (options_.every != 0 && state.evaluations % options_.every == 0) {
      std::fprintf(options_.out, "%s\n", line(state).c_str());
      std::fflush(options_.out);
    }
  }

  void on_finish(const TuningResult& result) {
    TuningState s;
    s.evaluations = result.history.size();
    s.best_value = result.best_value;
    s.best_index = result.best_index;
    if (result.reason == StopReason::repository_hit) s.best_index = 0;  // show the reused value
    std::string text = line(s) + ", " + std::string(to_string(result.reason));
    if (result.replayed != 0) text += ", " + std::to_string(result.replayed) + " replayed";
    std::fprintf(options_.out, terminal_ ? "\r%s\033[K\n" : "%s\n", text.c_str());
    std::fflush(options_.out);
  }

 private:
  using Clock = std::chrono::steady_clock;

  [[nodiscard]] std::string line(const TuningState& state) const {
    const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
    std::string out = options_.label;
    out += ": ";
    char buffer[160];
    if (options_.total != 0) {
      const double done = std::min(
          1.0, static_cast<double>(state.evaluations) / static_cast<double>(options_.total));
      if (terminal_) {
        constexpr int width = 24;
        const int filled = static_cast<int>(done * width);
        out += '[';
        out.append(static_cast<std::size_t>(filled), '#');
        out.append(static_cast<std::size_t>(width - filled), '.');
        out += "] ";
      }
      std::snprintf(buffer, sizeof buffer, "%zu/%zu trials", state.evaluations, options_.total);
      out += buffer;
    } else {
      std::snprintf(buffer, sizeof buffer, "%zu trials", state.evaluations);
      out += buffer;
    }
    if (state.has_best()) {
      std::snprintf(buffer, sizeof buffer, ", best %.4g", state.best_value);
      out += buffer;
    }
    std::snprintf(buffer, sizeof buffer, ", %.1f s", elapsed);
    out += buffer;
    if (options_.total != 0 && state.evaluations != 0 && state.evaluations < options_.total) {
      const double left = elapsed / static_cast<double>(state.evaluations) *
                          static_cast<double>(options_.total - state.evaluations);
      std::snprintf(buffer, sizeof buffer, ", about %.0f s left", left);
      out += buffer;
    }
    return out;
  }

  ProgressOptions options_;
  Clock::time_point started_ = Clock::now();
  Clock::time_point last_draw_{};
  bool terminal_ = false;
};

}  // namespace aoe

#endif  // AOE_OBSERVE_PROGRESS_HPP

// An experiment's repetitions in the files the autotuning-methodology package reads (Willemsen
// et al., "A methodology for comparing optimization algorithms for auto-tuning", FGCS 2024;
// https://github.com/AutoTuningAssociation/autotuning_methodology): T4 results files
// (https://github.com/odgaard/TuningSchema), one of every configuration of each input (its
// `SearchspaceStatistics` reads it as the full search space) and one per repetition of each
// strategy (its `write_results` takes a strategy's repetitions as lists of these entries).
// docs/research.md#scoring-with-autotuning-methodology.
#ifndef AOE_EXPERIMENT_METHODOLOGY_FILES_HPP
#define AOE_EXPERIMENT_METHODOLOGY_FILES_HPP

#include "aoe/core/error.hpp"
#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/status.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace aoe::experiment {

namespace detail {

// A name as a file name: letters, digits, '.', '-' and '@' kept, anything else '_'.
inline std::string file_name_of(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '@';
    if (!keep) c = '_';
  }
  return out;
}

// A configuration as T4 writes it: parameter name to value.
inline boost::json::object t4_configuration(const Space& space, const Configuration& c) {
  boost::json::object o;
  for (std::size_t d = 0; d < c.size() && d < space.dimensions(); ++d) {
    const auto& level = space.parameter(d).level(c[d]);
    if (!level.is_number()) {
      o[space.parameter(d).name()] = level.as_text();
    } else if (level.is_integer()) {
      o[space.parameter(d).name()] = level.as_integer();
    } else {
      o[space.parameter(d).name()] = level.as_real();
    }
  }
  return o;
}

// One evaluation as a T4 result: its status as the invalidity, the time in seconds (a failure:
// Kernel Tuner's name for it), and as times the device seconds charged ("runtimes") and the
// policy's own seconds per evaluation ("search_algorithm").
inline boost::json::object t4_entry(boost::json::object configuration, Status status, double value,
                                    double cost, double search_seconds) {
  const bool ok = status == Status::correct && std::isfinite(value);
  boost::json::value measured = value;
  if (!ok) {
    measured = status == Status::constraints ? "InvalidConfig"
               : status == Status::compile   ? "CompilationFailedConfig"
                                             : "RuntimeFailedConfig";
  }
  boost::json::object m{{"name", "time"}, {"unit", "s"}, {"value", measured}};
  return boost::json::object{
      {"configuration", std::move(configuration)},
      {"invalidity", ok ? std::string_view("correct") : to_string(status)},
      {"objectives", boost::json::array{"time"}},
      {"measurements", boost::json::array{std::move(m)}},
      {"times", boost::json::object{{"runtimes", cost}, {"search_algorithm", search_seconds}}}};
}

// A T4 results document around `results`.
inline std::string t4_document(boost::json::array results) {
  return boost::json::serialize(
             boost::json::object{{"schema_version", "1.0.0"},
                                 {"metadata", boost::json::object{{"timeunit", "seconds"}}},
                                 {"results", std::move(results)}}) +
         "\n";
}

// Every configuration of `problem`'s space, measured (a recorded space replays its recording,
// a simulator operator is timed), as the full search space's T4 results.
inline std::string full_space_document(const Problem& problem) {
  boost::json::array results;
  std::vector<Configuration> batch;
  const auto flush = [&] {
    const auto measured = problem.measure(SpaceView(*problem.space), batch);
    for (std::size_t i = 0; i < batch.size() && i < measured.size(); ++i) {
      const Measurement& m = measured[i];
      results.push_back(
          t4_entry(t4_configuration(*problem.space, batch[i]), m.status, m.value, m.cost, 0.0));
    }
    batch.clear();
  };
  Space::Enumerator e = problem.space->enumerate();
  Configuration c;
  while (e.next(c)) {
    batch.push_back(c);
    if (batch.size() == 256) flush();
  }
  flush();
  return t4_document(std::move(results));
}

// One repetition of a strategy as T4 results, in the order it evaluated.
inline std::string repetition_document(const Problem& problem, const Trace& trace) {
  boost::json::array results;
  const double per_evaluation =
      trace.values.empty() ? 0.0 : trace.seconds / static_cast<double>(trace.values.size());
  for (std::size_t k = 0; k < trace.values.size(); ++k) {
    const double v = trace.values[k];
    const bool failed = std::isnan(v);
    const Configuration c =
        k < trace.configurations.size() ? trace.configurations[k] : Configuration{};
    results.push_back(t4_entry(t4_configuration(*problem.space, c),
                               failed ? Status::runtime : Status::correct, v,
                               k < trace.costs.size() ? trace.costs[k] : 0.0, per_evaluation));
  }
  return t4_document(std::move(results));
}

}  // namespace detail

/// Writes, under `directory` (made if absent), per input `<input>/search_space_T4.json` (every
/// configuration of its space, measured) and per strategy and repetition
/// `<input>/<strategy>/repetition_<r>_T4.json` (its evaluations in order), names made file
/// names by replacing any character but letters, digits, '.', '-' and '@' with '_'. Needs the
/// traces (`Settings::traces`): without them, `invalid_argument`. A failed evaluation of a
/// repetition is written as a runtime failure (the trace keeps no status). Errors: `io_error`
/// naming the file or directory that could not be written.
[[nodiscard]] inline Result<void> write_methodology_files(const std::vector<ProblemResult>& results,
                                                          const Settings& settings,
                                                          const std::filesystem::path& directory) {
  if (!settings.traces) {
    return make_error(Errc::invalid_argument,
                      "the autotuning-methodology files need each repetition's evaluations: "
                      "run the experiment with Settings::traces");
  }
  for (const auto& pr : results) {
    const auto input = directory / detail::file_name_of(pr.problem->name);
    std::error_code ec;
    std::filesystem::create_directories(input, ec);
    if (ec) return make_error(Errc::io_error, input.string() + ": " + ec.message());
    auto full = write_file_atomically(input / "search_space_T4.json",
                                      detail::full_space_document(*pr.problem));
    if (!full) return full.error();
    for (const auto& s : pr.strategies) {
      const auto folder = input / detail::file_name_of(s.name);
      std::filesystem::create_directories(folder, ec);
      if (ec) return make_error(Errc::io_error, folder.string() + ": " + ec.message());
      for (std::size_t r = 0; r < s.traces.size(); ++r) {
        auto written =
            write_file_atomically(folder / ("repetition_" + std::to_string(r) + "_T4.json"),
                                  detail::repetition_document(*pr.problem, s.traces[r]));
        if (!written) return written.error();
      }
    }
  }
  return {};
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_METHODOLOGY_FILES_HPP

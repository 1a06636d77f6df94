// Your own search policy in the experiment that makes policies comparable (docs/research.md,
// "Your own policy"): the hill climbing of custom_search.cpp against random search, simulated
// annealing and Bayesian optimisation on recorded tuning spaces, each with seeded repetitions,
// scored as the fraction of the optimum per budget with 95% bootstrap intervals and the
// methodology score. The same experiment, JSON and plot as `aoe-bench`.
//
//   aoe_example_research_own_policy [--input] SPACE... [--strategy NAME,...] [--budget N]
//       [--repeats R] [--seed S] [--threads T] [--max-score-evaluations N] [--traces]
//       [--json FILE] [--plot FILE.svg] [--methodology DIR]
//
// SPACE: a Kernel Tuner cache or T4 results file (.json or .json.gz), or sim:<operator>.
// NAME: hill-climbing (the policy below) or one of ours; default hill-climbing, random,
// annealing, bayesian; budget 50, 10 repetitions, seed 1.
#include <aoe/core/random.hpp>
#include <aoe/experiment.hpp>
#include <aoe/io/atomic_file.hpp>
#include <aoe/space/space.hpp>
#include <aoe/tuner/concepts.hpp>
#include <aoe/vocab/trial.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

// First-improvement hill climbing with random restarts, as in custom_search.cpp: from a random
// valid point, measure its adjacent neighbours (one level up or down in one parameter) and move
// to the first that is better; at a local optimum restart elsewhere. Never proposes a
// configuration twice.
class HillClimbing {
 public:
  [[nodiscard]] std::string_view name() const { return "hill-climbing"; }

  void start(aoe::SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    current_.reset();
    visited_.clear();
  }

  [[nodiscard]] std::vector<aoe::Configuration> propose(std::size_t n) {
    std::vector<aoe::Configuration> out;
    if (current_) {
      for (auto& c : view_->neighbours(current_->configuration, aoe::Neighbourhood::adjacent)) {
        if (out.size() == n) break;
        if (!visited_.contains(c)) out.push_back(std::move(c));
      }
      if (!out.empty()) return out;
      current_.reset();  // a local optimum: restart
    }
    for (int tries = 0; tries < 1000; ++tries) {  // a random, not yet visited, valid point
      std::optional<aoe::Configuration> c = view_->sample(rng_);
      if (c && !visited_.contains(*c)) return {std::move(*c)};
    }
    return out;  // nothing new found: the run ends early ("exhausted")
  }

  void observe(std::span<const aoe::Trial> trials) {
    for (const aoe::Trial& t : trials) {
      visited_.insert(t.configuration);
      if (!t.measurement.ok()) continue;  // a failed configuration is never a place to stand
      if (!current_ || t.measurement.value < current_->value) {
        current_ = Point{t.configuration, t.measurement.value};
      }
    }
  }

 private:
  struct Point {
    aoe::Configuration configuration;
    double value;
  };
  aoe::SpaceView view_;
  aoe::Rng rng_;
  std::optional<Point> current_;
  std::unordered_set<aoe::Configuration, aoe::ConfigurationHash> visited_;
};
static_assert(aoe::search_policy<HillClimbing>);

namespace {

// The command line: aoe-bench's experiment flags (those bench/peers/run passes a program of its
// own, docs/research.md#your-own-policy-beside-the-peers), --methodology, and the spaces.
struct Arguments {
  std::vector<std::string> inputs;
  std::vector<std::string> strategies{"hill-climbing", "random", "annealing", "bayesian"};
  std::string json, plot, methodology;
  aoe::experiment::Settings settings{.budget = 50, .budget_seconds = {}, .repeats = 10, .seed = 1};
};

// Comma-separated names.
std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// Reads one flag and its value at argv[i] (advancing i); false on an unknown flag.
bool flag(Arguments& a, std::string_view name, const char* value) {
  const auto number = [&] { return std::strtoull(value, nullptr, 10); };
  if (name == "--budget")
    a.settings.budget = number();
  else if (name == "--repeats")
    a.settings.repeats = number();
  else if (name == "--seed")
    a.settings.seed = number();
  else if (name == "--threads")
    a.settings.threads = number();
  else if (name == "--max-score-evaluations")
    a.settings.max_score_evaluations = number();
  else if (name == "--strategy")
    a.strategies = split(value);
  else if (name == "--json")
    a.json = value;
  else if (name == "--plot")
    a.plot = value;
  else if (name == "--methodology")
    a.methodology = value;
  else
    return false;
  return true;
}

// The command line; nothing on a bad one (the usage is printed).
std::optional<Arguments> parse(int argc, char** argv) {
  Arguments a;
  // By default the methodology score averages over the budget (aoe-bench's
  // --max-score-evaluations): each repetition runs `budget` evaluations.
  bool capped = false;
  bool ok = true;
  for (int i = 1; i < argc && ok; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--traces") {
      a.settings.traces = true;
    } else if (arg == "--input") {
      for (; i + 1 < argc && std::string_view(argv[i + 1]).rfind("--", 0) != 0; ++i) {
        a.inputs.emplace_back(argv[i + 1]);
      }
    } else if (arg.rfind("--", 0) != 0) {
      a.inputs.emplace_back(arg);
    } else {
      ok = i + 1 < argc && flag(a, arg, argv[i + 1]);
      capped = capped || arg == "--max-score-evaluations";
      ++i;
    }
  }
  if (!capped) a.settings.max_score_evaluations = a.settings.budget;
  if (!ok || a.inputs.empty() || a.strategies.empty() || a.settings.budget == 0 ||
      a.settings.repeats == 0) {
    std::fprintf(stderr,
                 "usage: %s [--input] SPACE... [--strategy hill-climbing,random,...] [--budget N] "
                 "[--repeats R] [--seed S] [--threads T] [--max-score-evaluations N] [--traces] "
                 "[--json FILE] [--plot FILE.svg] [--methodology DIR]\n",
                 argv[0]);
    return std::nullopt;
  }
  return a;
}

// The inputs: recorded spaces, or simulator operators (sim:...).
std::optional<std::vector<aoe::experiment::Problem>> load(const std::vector<std::string>& inputs) {
  std::vector<aoe::experiment::Problem> problems;
  for (const auto& input : inputs) {
    if (input.rfind("sim:", 0) == 0) {
      auto sims = aoe::experiment::load_simulator_problems(input);
      if (!sims) return std::fprintf(stderr, "%s\n", sims.error().what().c_str()), std::nullopt;
      for (auto& p : *sims) problems.push_back(std::move(p));
      continue;
    }
    auto problem = aoe::experiment::load_problem(input);
    if (!problem) return std::fprintf(stderr, "%s\n", problem.error().what().c_str()), std::nullopt;
    problems.push_back(std::move(*problem));
  }
  return problems;
}

// Yours as a type, ours by name (aoe::search_names()), in one experiment.
std::optional<std::vector<aoe::experiment::Strategy>> strategies(
    const std::vector<std::string>& names) {
  std::vector<aoe::experiment::Strategy> out;
  for (const auto& name : names) {
    if (name == "hill-climbing") {
      out.push_back(aoe::experiment::policy<HillClimbing>(name));
      continue;
    }
    auto ours = aoe::experiment::named(name);
    if (!ours) return std::fprintf(stderr, "%s\n", ours.error().what().c_str()), std::nullopt;
    out.push_back(std::move(*ours));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse(argc, argv);
  if (!args) return 2;
  const auto problems = load(args->inputs);
  if (!problems) return 3;
  const auto policies = strategies(args->strategies);
  if (!policies) return 2;
  // The methodology files need every repetition's evaluations; the JSON shows them with --traces.
  aoe::experiment::Settings settings = args->settings;
  settings.traces = settings.traces || !args->methodology.empty();
  const auto results = aoe::experiment::run(*problems, *policies, settings);
  if (!results) return std::fprintf(stderr, "%s\n", results.error().what().c_str()), 1;
  // aoe-bench's table, then the fraction of the optimum with its 95% interval at 25 and 50.
  std::fputs(aoe::experiment::table(*results, args->settings).c_str(), stdout);
  std::fputs(("\n" + aoe::experiment::fraction_table(*results, args->settings)).c_str(), stdout);
  const auto write = [](const std::string& path, const std::string& text) {
    if (path.empty()) return true;
    const auto written = aoe::write_file_atomically(path, text);
    if (!written) std::fprintf(stderr, "%s\n", written.error().what().c_str());
    return written.has_value();
  };
  if (!write(args->json, aoe::experiment::json_text(*results, args->settings)) ||
      !write(args->plot, aoe::experiment::to_svg(*results, args->settings))) {
    return 4;
  }
  if (!args->methodology.empty()) {
    const auto written =
        aoe::experiment::write_methodology_files(*results, settings, args->methodology);
    if (!written) return std::fprintf(stderr, "%s\n", written.error().what().c_str()), 4;
  }
  // Every strategy has a fraction of the optimum at the budget, with its interval.
  for (const auto& input : *results) {
    for (const auto& s : input.strategies) {
      if (s.fraction_replicates.count(args->settings.budget) == 0) return 1;
    }
  }
  return 0;
}

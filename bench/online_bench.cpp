// Online tuning against the alternatives, on examples/online_matmul.cpp's loop (a blocked matrix
// multiply called on n = 64, 96, 128 in turn, one space for all shapes):
//   default  the loop with the default configuration (untiled ijk), no library
//   off      through aoe::Online with tuning off and an empty repository (the default)
//   tuning   through aoe::Online tuning online (AOE_MODE=2), into a knowledge bank
//   tuned    the next run: aoe::Online off, configurations from that bank
//   offline  the loop with the best configuration aoe::Tuner finds offline on the same space
// overhead_ns_per_call is the library's own cost per call beyond the kernel: the same number of
// calls through aoe::Online in that mode with an empty kernel. regret_seconds is the time the
// tuning run lost to exploration (Online's summary). Prints JSON; never a timed assertion.
// The tuning run happens once; the other loops are run `--repeats` times, interleaved, and
// their median total is reported.
// --online-budget: candidates per key online (80); --offline-budget: evaluations per shape
// offline (120).
//   online_bench [--iterations N] [--online-budget N] [--offline-budget N] [--repeats N]
//                [--seed S] [--json FILE]
#include <aoe/measure/host_runner.hpp>
#include <aoe/online.hpp>
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/tuner/tuner.hpp>

#include <boost/hana/define_struct.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

enum class Order { ijk, ikj, kij };

struct Blocking {
  BOOST_HANA_DEFINE_STRUCT(Blocking, (int, bi), (int, bj), (int, bk), (Order, order));
};

// The example's kernel, unchanged.
void matmul(const Blocking& p, int n, const float* a, const float* b, float* c) {
  std::fill(c, c + static_cast<std::ptrdiff_t>(n) * n, 0.0f);
  const int ti = n / p.bi, tj = n / p.bj, tk = n / p.bk;
  for (int i0 = 0; i0 < n; i0 += ti)
    for (int k0 = 0; k0 < n; k0 += tk)
      for (int j0 = 0; j0 < n; j0 += tj) {
        const int i1 = i0 + ti, j1 = j0 + tj, k1 = k0 + tk;
        if (p.order == Order::ijk) {
          for (int i = i0; i < i1; ++i)
            for (int j = j0; j < j1; ++j) {
              float s = c[i * n + j];
              for (int k = k0; k < k1; ++k) s += a[i * n + k] * b[k * n + j];
              c[i * n + j] = s;
            }
        } else if (p.order == Order::ikj) {
          for (int i = i0; i < i1; ++i)
            for (int k = k0; k < k1; ++k)
              for (int j = j0; j < j1; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
        } else {
          for (int k = k0; k < k1; ++k)
            for (int i = i0; i < i1; ++i)
              for (int j = j0; j < j1; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
        }
      }
}

namespace {

constexpr std::array<int, 3> shapes{64, 96, 128};
const Blocking untiled{1, 1, 1, Order::ijk};
const std::vector<aoe::NamedValue> untiled_named{{"bi", 1}, {"bj", 1}, {"bk", 1}, {"order", "ijk"}};

struct Problem {
  int n;
  std::vector<float> a, b, c;
  explicit Problem(int size) : n(size), a(n * n), b(n * n), c(n * n) {
    aoe::Rng rng(static_cast<std::uint64_t>(n));
    for (float& x : a) x = static_cast<float>(rng.uniform(-1, 1));
    for (float& x : b) x = static_cast<float>(rng.uniform(-1, 1));
  }
  void run(const Blocking& p) { matmul(p, n, a.data(), b.data(), c.data()); }
};

aoe::TypedSpace<Blocking> blocking_space() {
  return aoe::make_space<Blocking>(
      aoe::values("bi", {1, 2, 4, 8, 16, 32}), aoe::values("bj", {1, 2, 4, 8, 16, 32}),
      aoe::values("bk", {1, 2, 4, 8, 16, 32}),
      aoe::enumeration<Order>("order",
                              {{Order::ijk, "ijk"}, {Order::ikj, "ikj"}, {Order::kij, "kij"}}));
}

aoe::TuningKey key_of(int n) { return {"matmul/n=" + std::to_string(n) + "/fp32", "host"}; }

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Row {
  std::string mode;
  long calls = 0;
  double total_seconds = 0;
  double overhead_ns_per_call = 0;
  double regret_seconds = 0;
};

using Online = aoe::Online<aoe::Evolutionary<>, aoe::KnowledgeBank, Blocking>;

aoe::OnlineOptions online_options(aoe::OnlineMode mode, std::uint64_t seed, std::size_t budget) {
  aoe::OnlineOptions o;
  o.seed = seed;
  o.budget = budget;
  o.default_configuration = untiled_named;
  o.mode = mode;
  o.repeat_tune = false;
  o.environment = aoe::Environment{};
  o.summary_at_exit = false;
  return o;
}

// The loop through an Online; returns its total.
double online_loop(Online& online, std::vector<Problem>& problems, int iterations) {
  std::vector<aoe::TuningKey> keys;
  for (const auto& p : problems) keys.push_back(key_of(p.n));
  const auto t0 = Clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t s = 0; s < problems.size(); ++s) {
      auto call = online.begin(keys[s]);
      problems[s].run(call.parameters());
      call.end();
    }
  }
  return seconds_since(t0);
}

// Nanoseconds per call of the library alone: the loop's calls with an empty kernel.
double overhead_ns(Online& online, int iterations) {
  std::vector<aoe::TuningKey> keys;
  for (const int n : shapes) keys.push_back(key_of(n));
  volatile int sink = 0;
  const auto t0 = Clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (const auto& key : keys) {
      auto call = online.begin(key);
      sink = sink + call.parameters().bi;
      call.end();
    }
  }
  return seconds_since(t0) * 1e9 / (static_cast<double>(iterations) * keys.size());
}

double fixed_loop(std::vector<Problem>& problems, const std::vector<Blocking>& use,
                  int iterations) {
  const auto t0 = Clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t s = 0; s < problems.size(); ++s) problems[s].run(use[s]);
  }
  return seconds_since(t0);
}

int usage(const char* argv0, const std::string& why) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--iterations N] [--online-budget N] "
               "[--offline-budget N] [--repeats N] [--seed S] [--json FILE]\n",
               argv0, why.c_str(), argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 600;
  int offline_budget = 120;
  int repeats = 3;
  int online_budget = 80;
  std::uint64_t seed = 1;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(argv[0], arg + ": expected a value");
    const std::string value = argv[++i];
    if (arg == "--iterations" || arg == "--offline-budget" || arg == "--repeats" ||
        arg == "--online-budget") {
      const int v = std::atoi(value.c_str());
      if (v < 1) return usage(argv[0], arg + " '" + value + "': expected an integer >= 1");
      (arg == "--iterations"      ? iterations
       : arg == "--repeats"       ? repeats
       : arg == "--online-budget" ? online_budget
                                  : offline_budget) = v;
    } else if (arg == "--seed") {
      seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (arg == "--json") {
      json_path = value;
    } else {
      return usage(argv[0], "unknown option " + arg);
    }
  }
  const long calls = static_cast<long>(iterations) * static_cast<long>(shapes.size());
  std::vector<Problem> problems(shapes.begin(), shapes.end());

  // The tuning run, once: aoe::Online tuning into a bank in a temporary directory, written as
  // the bank Online makes from the environment writes (atomic, not fsync'd: durable = false).
  const auto bank =
      std::filesystem::temp_directory_path() / ("aoe_online_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(bank);
  for (auto& p : problems) p.run(untiled);  // warm the caches as every mode is
  Row tuning{"tuning", calls, 0, 0, 0};
  {
    Online online(blocking_space(), online_options(aoe::OnlineMode::tune, seed, online_budget), {},
                  aoe::KnowledgeBank({.custom_root = bank, .durable = false}));
    tuning.total_seconds = online_loop(online, problems, iterations);
    const aoe::OnlineSummary s = online.summary();
    std::fputs(s.to_string().c_str(), stderr);
    tuning.regret_seconds = s.regret_seconds();
    // The library's cost while tuning: the same calls with an empty kernel, tuning a bank of
    // its own (every candidate then measures ~0 s; the search, bookkeeping and bank writes
    // remain).
    Online empty(blocking_space(), online_options(aoe::OnlineMode::tune, seed, online_budget), {},
                 aoe::KnowledgeBank({.custom_root = bank / "empty_kernel", .durable = false}));
    tuning.overhead_ns_per_call = overhead_ns(empty, iterations);
  }
  // offline: aoe::Tuner with the same search policy and space, per shape.
  std::vector<Blocking> offline_best;
  {
    const auto space = blocking_space();
    for (auto& p : problems) {
      aoe::Tuner<aoe::Evolutionary<>, aoe::HostRunner> tuner(
          aoe::Evolutionary<>{}, aoe::HostRunner([&p](const Blocking& b) { p.run(b); }),
          aoe::TunerOptions{.seed = seed});
      const auto result =
          tuner.tune(space, aoe::MaxEvaluations{static_cast<std::size_t>(offline_budget)});
      offline_best.push_back(result.found() ? space.at(*result.best_configuration) : untiled);
      std::fprintf(stderr, "offline n=%d: %s, %.4g s (%zu evaluations)\n", p.n,
                   result.found() ? space.to_string(*result.best_configuration).c_str() : "-",
                   result.best_value, result.history.size());
    }
  }
  // The loops that do not tune, interleaved `repeats` times (the median is reported), so that
  // a slow spell of the machine does not favour one of them.
  Online off(blocking_space(), online_options(aoe::OnlineMode::off, seed, online_budget), {},
             aoe::KnowledgeBank({.custom_root = bank / "empty"}));
  Online tuned(blocking_space(), online_options(aoe::OnlineMode::off, seed, online_budget), {},
               aoe::KnowledgeBank({.custom_root = bank, .durable = false}));
  const std::vector<Blocking> defaults(shapes.size(), untiled);
  std::array<std::vector<double>, 4> totals;
  for (int r = 0; r < repeats; ++r) {
    totals[0].push_back(fixed_loop(problems, defaults, iterations));
    totals[1].push_back(online_loop(off, problems, iterations));
    totals[2].push_back(online_loop(tuned, problems, iterations));
    totals[3].push_back(fixed_loop(problems, offline_best, iterations));
  }
  std::vector<Row> rows;
  rows.push_back({"default", calls, aoe::median(totals[0]), 0, 0});
  rows.push_back({"off", calls, aoe::median(totals[1]), overhead_ns(off, iterations), 0});
  rows.push_back(tuning);
  rows.push_back({"tuned", calls, aoe::median(totals[2]), overhead_ns(tuned, iterations), 0});
  rows.push_back({"offline", calls, aoe::median(totals[3]), 0, 0});
  std::filesystem::remove_all(bank);

  std::string json = "{\"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "%s{\"mode\": \"%s\", \"calls\": %ld, \"total_seconds\": %.6f, "
                  "\"overhead_ns_per_call\": %.1f, \"regret_seconds\": %.6f}",
                  i == 0 ? "" : ", ", rows[i].mode.c_str(), rows[i].calls, rows[i].total_seconds,
                  rows[i].overhead_ns_per_call, rows[i].regret_seconds);
    json += line;
  }
  json += "]}\n";
  std::fputs(json.c_str(), stdout);
  if (!json_path.empty()) {
    FILE* f = std::fopen(json_path.c_str(), "w");
    if (f == nullptr || std::fputs(json.c_str(), f) < 0 || std::fclose(f) != 0) {
      std::fprintf(stderr, "%s: --json %s: cannot write the file\n", argv[0], json_path.c_str());
      return 1;
    }
  }
  return 0;
}

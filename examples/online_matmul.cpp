// Online tuning in the user's own loop: a blocked matrix multiply called a few thousand times on
// a few shapes, as a solver or a training loop would. With AOE_MODE=2 the loop tunes as it goes
// (the winners go to the bank); run again without it, it uses the bank's winners.
//
//   aoe_example_online_matmul              demo: runs the loop with the default configuration,
//                                          then itself with AOE_MODE=2, then without (bank in
//                                          ./online_bank), and prints the three totals
//   aoe_example_online_matmul --loop       the user's program: the mode from AOE_MODE, the bank
//                                          from TUNE_BANK_PATH; prints the loop's total
//   aoe_example_online_matmul --default    the same loop, always the default configuration
//   [--iterations N]                       loop iterations (one call per shape each), 600
#include <aoe/online.hpp>
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/search/evolutionary.hpp>

#include <boost/hana/define_struct.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

enum class Order { ijk, ikj, kij };

// How the multiply is blocked: the number of blocks along i, j and k, and the loop order inside
// a block. (1, 1, 1, ijk) is the untiled textbook loop, the default.
struct Blocking {
  BOOST_HANA_DEFINE_STRUCT(Blocking, (int, bi), (int, bj), (int, bk), (Order, order));
};

// C = A * B for n x n row-major matrices; every block count divides n (the shapes below).
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

struct Problem {
  int n;
  std::vector<float> a, b, c, reference;
  explicit Problem(int size) : n(size), a(n * n), b(n * n), c(n * n), reference(n * n) {
    aoe::Rng rng(static_cast<std::uint64_t>(n));
    for (float& x : a) x = static_cast<float>(rng.uniform(-1, 1));
    for (float& x : b) x = static_cast<float>(rng.uniform(-1, 1));
    matmul(Blocking{1, 1, 1, Order::ikj}, n, a.data(), b.data(), reference.data());
  }
  void run(const Blocking& p) { matmul(p, n, a.data(), b.data(), c.data()); }
  [[nodiscard]] bool correct() const {
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (std::abs(c[i] - reference[i]) > 1e-3f * (1 + std::abs(reference[i]))) return false;
    }
    return true;
  }
};

// One space for every shape: block counts that divide 64, 96 and 128.
aoe::TypedSpace<Blocking> blocking_space() {
  return aoe::make_space<Blocking>(
      aoe::values("bi", {1, 2, 4, 8, 16, 32}), aoe::values("bj", {1, 2, 4, 8, 16, 32}),
      aoe::values("bk", {1, 2, 4, 8, 16, 32}),
      aoe::enumeration<Order>("order",
                              {{Order::ijk, "ijk"}, {Order::ikj, "ikj"}, {Order::kij, "kij"}}));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The user's program: the loop, with the library choosing each call's configuration.
int online_loop(int iterations) {
  using Tuner = aoe::Online<aoe::Evolutionary<>, aoe::KnowledgeBank, Blocking>;
  // --- What a user adds: one tuner, a key per problem, begin/end around the call. ---------
  static Tuner tuner(blocking_space(),
                     aoe::OnlineOptions{.seed = 1,
                                        .budget = 80,
                                        .default_configuration = {
                                            {"bi", 1}, {"bj", 1}, {"bk", 1}, {"order", "ijk"}}});
  std::vector<Problem> problems(shapes.begin(), shapes.end());
  std::vector<aoe::TuningKey> keys;
  for (const int n : shapes) keys.push_back({"matmul/n=" + std::to_string(n) + "/fp32", "host"});

  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t s = 0; s < problems.size(); ++s) {
      auto call = tuner.begin(keys[s]);
      problems[s].run(call.parameters());
      call.end();
    }
  }
  const double total = seconds_since(t0);
  // ------------------------------------------------------------------------------------------
  bool ok = true;
  for (auto& p : problems) ok = ok && p.correct();
  std::printf("loop total (AOE_MODE %s): %.3f s\n",
              tuner.mode() == aoe::OnlineMode::tune ? "2, tuning" : "unset", total);
  std::printf("total-seconds %.6f\n", total);
  return ok ? 0 : 1;
}

int default_loop(int iterations) {
  std::vector<Problem> problems(shapes.begin(), shapes.end());
  const Blocking untiled{1, 1, 1, Order::ijk};
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (auto& p : problems) p.run(untiled);
  }
  const double total = seconds_since(t0);
  bool ok = true;
  for (auto& p : problems) ok = ok && p.correct();
  std::printf("loop total (default configuration): %.3f s\ntotal-seconds %.6f\n", total, total);
  return ok ? 0 : 1;
}

// Runs this program with `args`, echoes its output and returns its "total-seconds" (or -1).
double run_self(const std::string& args) {
  std::array<char, 4096> self{};
  const auto len = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (len <= 0) return -1;
  const std::string command =
      "'" + std::string(self.data(), static_cast<std::size_t>(len)) + "' " + args;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  double total = -1;
  std::array<char, 1024> line{};
  while (std::fgets(line.data(), static_cast<int>(line.size()), pipe) != nullptr) {
    if (std::sscanf(line.data(), "total-seconds %lf", &total) == 1) continue;
    std::fputs(line.data(), stdout);
  }
  return ::pclose(pipe) == 0 ? total : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 600;
  std::string what = "demo";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--loop" || arg == "--default") {
      what = arg.substr(2);
    } else if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--loop | --default] [--iterations N >= 1]\n", argv[0]);
      return 2;
    }
  }
  if (iterations < 1) {
    std::fprintf(stderr, "%s: --iterations: expected an integer >= 1\n", argv[0]);
    return 2;
  }
  try {
    if (what == "loop") return online_loop(iterations);
    if (what == "default") return default_loop(iterations);
  } catch (const aoe::Error& e) {  // an invalid AOE_MODE, REPEAT_TUNE or TUNE_BANK_PATH
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }

  // The demo: the same loop three times, in three processes, as a user would run it.
  const std::filesystem::path bank = std::filesystem::absolute("online_bank");
  std::filesystem::remove_all(bank);
  std::filesystem::create_directories(bank);
  ::setenv("TUNE_BANK_PATH", bank.c_str(), 1);
  ::unsetenv("REPEAT_TUNE");
  const std::string n = " --iterations " + std::to_string(iterations);
  ::unsetenv("AOE_MODE");
  const double t_default = run_self("--default" + n);
  ::setenv("AOE_MODE", "2", 1);
  const double t_online = run_self("--loop" + n);
  ::unsetenv("AOE_MODE");
  const double t_tuned = run_self("--loop" + n);
  if (t_default < 0 || t_online < 0 || t_tuned < 0) {
    std::fprintf(stderr, "a run failed (see above)\n");
    return 1;
  }
  std::printf("\n%-34s %10s  (%d calls on n = 64, 96, 128)\n", "run", "loop total",
              iterations * static_cast<int>(shapes.size()));
  std::printf("%-34s %9.3f s\n", "default (untiled ijk)", t_default);
  std::printf("%-34s %9.3f s  %.2fx\n", "online tuning (AOE_MODE=2)", t_online,
              t_default / t_online);
  std::printf("%-34s %9.3f s  %.2fx\n", "tuned (next run, bank)", t_tuned, t_default / t_tuned);
  std::printf("bank: %s\n", (bank / "host" / "user_bank" / "host_user_keys.json").c_str());
  return 0;
}

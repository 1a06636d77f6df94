// Quick start: tune a blocked matrix multiply C = A * B (n x n, float, row-major) on this CPU,
// then compare the tuned kernel with the naive untiled loop and with Eigen's product.
//   aoe_example_quickstart [n]      (n defaults to 256)
#include <aoe.hpp>

#include <Eigen/Core>
#include <boost/hana/define_struct.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// Loop order inside a tile: ikj streams rows of B and C (contiguous), ijk walks B by columns.
enum class Order { ijk, ikj, kij };

// The tunable parameters, as a plain struct the kernel reads.
struct Tiling {
  BOOST_HANA_DEFINE_STRUCT(Tiling, (int, ti), (int, tj), (int, tk), (Order, order));
};

// C = A * B, blocked by (ti, tj, tk); the tiles divide n (the space guarantees it).
void matmul(const Tiling& t, int n, const float* a, const float* b, float* c) {
  std::fill(c, c + static_cast<std::ptrdiff_t>(n) * n, 0.0f);
  for (int i0 = 0; i0 < n; i0 += t.ti)
    for (int k0 = 0; k0 < n; k0 += t.tk)
      for (int j0 = 0; j0 < n; j0 += t.tj) {
        const int i1 = i0 + t.ti, j1 = j0 + t.tj, k1 = k0 + t.tk;
        if (t.order == Order::ijk) {
          for (int i = i0; i < i1; ++i)
            for (int j = j0; j < j1; ++j) {
              float s = c[i * n + j];
              for (int k = k0; k < k1; ++k) s += a[i * n + k] * b[k * n + j];
              c[i * n + j] = s;
            }
        } else if (t.order == Order::ikj) {
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

// GFLOP/s of f: one warm-up run, then the median of 5 timed runs (the runner's method).
template <class F>
double gflops(int n, F f) {
  using Clock = std::chrono::steady_clock;
  f();
  std::vector<double> seconds;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return 2.0 * n * n * n / aoe::median(seconds) / 1e9;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  if (n < 8) {
    std::fprintf(stderr, "usage: %s [n >= 8]\n", argv[0]);
    return 2;
  }
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix a(n, n), b(n, n), c(n, n);
  aoe::Rng rng(42);  // seeded: every run tunes the same inputs
  for (float& x : a.reshaped()) x = static_cast<float>(rng.uniform(-1, 1));
  for (float& x : b.reshaped()) x = static_cast<float>(rng.uniform(-1, 1));
  const Matrix reference = a * b;
  const auto correct = [&](const Tiling&) { return c.isApprox(reference, 1e-4f); };
  const auto kernel = [&](const Tiling& t) { matmul(t, n, a.data(), b.data(), c.data()); };

  // --- Tuning: the space, the policies, the run. -------------------------------------------
  auto space = aoe::make_space<Tiling>(
      aoe::pow2("ti", 4, n), aoe::pow2("tj", 4, n), aoe::pow2("tk", 4, n),
      aoe::enumeration<Order>("order",
                              {{Order::ijk, "ijk"}, {Order::ikj, "ikj"}, {Order::kij, "kij"}}),
      aoe::divides("ti", n), aoe::divides("tj", n), aoe::divides("tk", n),
      aoe::product_at_most({"tk", "tj"}, 16384));  // a B tile of at most 64 KiB stays in L2

  aoe::Tuner<aoe::RandomSearch, aoe::HostRunner, aoe::MemoryRepository> tuner(
      aoe::RandomSearch{}, aoe::HostRunner(kernel, correct, {.repetitions = 3}),
      aoe::TunerOptions{.seed = 1});
  const aoe::TuningKey key{"matmul/n=" + std::to_string(n) + "/fp32", "host"};
  using namespace std::chrono_literals;
  const aoe::TuningResult result =
      tuner.tune(space, key, aoe::MaxEvaluations{100} || aoe::MaxDuration{5s});
  if (!result.found()) {
    std::fprintf(stderr, "no configuration passed the check\n");
    return 1;
  }
  const Tiling best = space.at(*result.best_configuration);
  // ------------------------------------------------------------------------------------------

  std::printf("space: %.0f raw, %.0f valid configurations\n", space.size().raw, space.size().valid);
  std::printf("evaluated %zu (%zu correct) in %.2f s; best: %s\n", result.history.size(),
              result.count(aoe::Status::correct), result.total_seconds,
              space.to_string(*result.best_configuration).c_str());
  // The winner is in the repository under `key`: a second run reuses it without measuring.
  const auto again = tuner.tune(space, key, aoe::MaxEvaluations{60});
  std::printf("second run: %s, %zu measured\n", aoe::to_string(again.reason).data(),
              again.history.size());

  // Compare, with the same timing method, the naive loop, the tuned kernel and Eigen. The
  // naive loop is the default: one tile (the whole matrix), so it is not a point of the space.
  const Tiling naive{n, n, n, Order::ijk};
  const double g_default = gflops(n, [&] { kernel(naive); });
  const bool default_ok = correct(naive);
  const double g_tuned = gflops(n, [&] { kernel(best); });
  const bool tuned_ok = correct(best);
  const Eigen::MatrixXf ea = a, eb = b;
  Eigen::MatrixXf ec(n, n);
  const double g_eigen = gflops(n, [&] { ec.noalias() = ea * eb; });

  std::printf("\n%-26s %10s  (n = %d)\n", "kernel", "GFLOP/s", n);
  std::printf("%-26s %10.2f\n", "default (untiled, ijk)", g_default);
  std::printf("%-26s %10.2f  %s\n", "tuned", g_tuned,
              space.to_string(*result.best_configuration).c_str());
  std::printf("%-26s %10.2f\n", "Eigen::MatrixXf product", g_eigen);
  std::printf("speed-up of tuned over default: %.2fx\n", g_tuned / g_default);
  return default_ok && tuned_ok ? 0 : 1;
}

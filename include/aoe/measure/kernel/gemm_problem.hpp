// A single-precision GEMM problem and its host reference, shared by the OpenCL and CUDA GEMM
// kernels: the same inputs and the same expected output whichever device is tuned.
#ifndef AOE_MEASURE_KERNEL_GEMM_PROBLEM_HPP
#define AOE_MEASURE_KERNEL_GEMM_PROBLEM_HPP

#include "aoe/core/random.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aoe::kernel {

/// Inputs of a GEMM problem: A and B uniform in [-1, 1) from `seed`, and C = A * B computed
/// on the host in double precision (the reference the kernel is checked against).
struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<float> a{}, b{};
  std::vector<double> c{};
};

/// A and B of gemm_problem(m, n, k, seed) without the reference (`c` empty): for sizes whose
/// host reference would take too long, checked against another library's result instead.
[[nodiscard]] inline GemmProblem gemm_inputs(std::int64_t m, std::int64_t n, std::int64_t k,
                                             std::uint64_t seed = 42) {
  GemmProblem p{m, n, k};
  Rng rng(seed);
  p.a.resize(static_cast<std::size_t>(m * k));
  p.b.resize(static_cast<std::size_t>(k * n));
  for (float& x : p.a) x = static_cast<float>(rng.uniform(-1, 1));
  for (float& x : p.b) x = static_cast<float>(rng.uniform(-1, 1));
  return p;
}

/// C = A * B for row-major A (M x K) and B (K x N) drawn from `seed`.
[[nodiscard]] inline GemmProblem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k,
                                              std::uint64_t seed = 42) {
  GemmProblem p = gemm_inputs(m, n, k, seed);
  p.c.assign(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t l = 0; l < k; ++l) {
      const double a = p.a[static_cast<std::size_t>(i * k + l)];
      const float* brow = &p.b[static_cast<std::size_t>(l * n)];
      double* crow = &p.c[static_cast<std::size_t>(i * n)];
      for (std::int64_t j = 0; j < n; ++j) crow[j] += a * brow[j];
    }
  }
  return p;
}

/// Floating-point operations of the GEMM (2 M N K), for GFLOP/s.
[[nodiscard]] inline double gemm_flops(const GemmProblem& p) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
}

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_GEMM_PROBLEM_HPP

// A 2D convolution problem and its host reference, shared by the OpenCL and CUDA convolution
// kernels: the same input, filter and expected output whichever device is tuned.
#ifndef AOE_MEASURE_KERNEL_CONVOLUTION_PROBLEM_HPP
#define AOE_MEASURE_KERNEL_CONVOLUTION_PROBLEM_HPP

#include "aoe/core/random.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aoe::kernel {

/// A convolution problem: input, filter (uniform in [0, 1) from `seed`) and the host reference.
/// out[y][x] = sum over the FH x FW filter of in[y + i][x + j] * filter[i][j], for an output of
/// H x W; the input is (H + FH - 1) x (W + FW - 1), row-major.
struct ConvolutionProblem {
  std::int64_t height = 0, width = 0, filter_height = 0, filter_width = 0;
  std::vector<float> input{}, filter{};
  std::vector<double> output{};
};

/// An H x W output with an FH x FW filter, inputs drawn from `seed`, the reference in double.
[[nodiscard]] inline ConvolutionProblem convolution_problem(std::int64_t h, std::int64_t w,
                                                            std::int64_t fh, std::int64_t fw,
                                                            std::uint64_t seed = 42) {
  ConvolutionProblem p{h, w, fh, fw};
  Rng rng(seed);
  const std::int64_t iw = w + fw - 1;
  p.input.resize(static_cast<std::size_t>((h + fh - 1) * iw));
  p.filter.resize(static_cast<std::size_t>(fh * fw));
  for (float& x : p.input) x = static_cast<float>(rng.uniform());
  for (float& x : p.filter) x = static_cast<float>(rng.uniform());
  p.output.assign(static_cast<std::size_t>(h * w), 0.0);
  for (std::int64_t y = 0; y < h; ++y) {
    for (std::int64_t x = 0; x < w; ++x) {
      double s = 0;
      for (std::int64_t i = 0; i < fh; ++i) {
        for (std::int64_t j = 0; j < fw; ++j) {
          s += static_cast<double>(p.input[static_cast<std::size_t>((y + i) * iw + x + j)]) *
               p.filter[static_cast<std::size_t>(i * fw + j)];
        }
      }
      p.output[static_cast<std::size_t>(y * w + x)] = s;
    }
  }
  return p;
}

/// Floating-point operations of the convolution (2 H W FH FW), for GFLOP/s.
[[nodiscard]] inline double convolution_flops(const ConvolutionProblem& p) {
  return 2.0 * static_cast<double>(p.height) * static_cast<double>(p.width) *
         static_cast<double>(p.filter_height) * static_cast<double>(p.filter_width);
}

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_CONVOLUTION_PROBLEM_HPP

// For tests only: the subset of CUDA C++ that the project's kernels (measure/cuda/gemm.hpp,
// convolution.hpp) use, emulated in plain C++20 so that their source compiles with the host's
// compiler and runs on the CPU, every thread of a block as a std::thread. What it gives:
//   - the function qualifiers (__global__, __device__, __host__, __forceinline__) and
//     __launch_bounds__(...) as nothing (or `inline`);
//   - __shared__ as `static`: blocks run one after the other, so a kernel's function-static
//     storage is the shared memory of the running block (one array per template instance, as
//     on the device); __align__(n) as the GNU attribute (valid among the decl-specifiers);
//   - threadIdx, blockIdx (uint3), blockDim, gridDim (dim3) as thread_local values;
//   - __syncthreads() as a std::barrier of the block's threads (a thread that returns from the
//     kernel drops out of it, as an exited thread stops counting on the device);
//   - float2 and float4 (8- and 16-byte aligned), make_float2, make_float4, __ldg; fmaf is the
//     C library's.
// aoe::emulation::launch(grid, block, kernel) runs the blocks in order, each with one thread
// per CUDA thread (up to 1024). A kernel thus runs with real concurrency inside a block: a
// missing barrier shows as a data race (wrong results, varying between runs); a misaligned
// vector access is undefined behaviour here too (the alignment sanitizer reports it).
#ifndef AOE_TESTS_CUDA_HOST_EMULATION_HPP
#define AOE_TESTS_CUDA_HOST_EMULATION_HPP

#include <math.h>    // fmaf, as device code calls it (unqualified)
#include <stddef.h>  // size_t, as device code names it (unqualified)

#include <barrier>
#include <cstddef>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

struct uint3 {
  unsigned int x = 0, y = 0, z = 0;
};

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1)
      : x(x_), y(y_), z(z_) {}
};

struct alignas(8) float2 {
  float x, y;
};

struct alignas(16) float4 {
  float x, y, z, w;
};

inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

/// A load through the read-only data cache: a plain load here.
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

namespace aoe::emulation {

/// The barrier of the block the calling thread belongs to.
inline thread_local std::barrier<>* block_barrier = nullptr;

/// In which order a block's threads are started: the first started run ahead of the others,
/// so the two orders interleave a block's threads differently (a race shows in one of them).
enum class Order { forward, reverse };

/// Runs `kernel()` (a callable that calls the __global__ function with its arguments) on a
/// grid of `grid` blocks of `block` threads: block after block (x fastest), each block's
/// threads as std::threads that share one barrier.
template <class Kernel>
void launch(dim3 grid, dim3 block, const Kernel& kernel, Order order = Order::forward) {
  const unsigned int threads = block.x * block.y * block.z;
  for (unsigned int bz = 0; bz < grid.z; ++bz) {
    for (unsigned int by = 0; by < grid.y; ++by) {
      for (unsigned int bx = 0; bx < grid.x; ++bx) {
        std::barrier<> barrier(static_cast<std::ptrdiff_t>(threads));
        std::vector<std::jthread> team;
        team.reserve(threads);
        for (unsigned int i = 0; i < threads; ++i) {
          const unsigned int t = order == Order::forward ? i : threads - 1 - i;
          team.emplace_back([&, t, bx, by, bz] {
            threadIdx = uint3{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
            blockIdx = uint3{bx, by, bz};
            blockDim = block;
            gridDim = grid;
            block_barrier = &barrier;
            kernel();
            barrier.arrive_and_drop();
          });
        }
      }  // the jthreads join here, before the next block reuses the shared memory
    }
  }
}

}  // namespace aoe::emulation

/// Waits until every thread of the block has arrived (and sees the others' memory writes).
inline void __syncthreads() { aoe::emulation::block_barrier->arrive_and_wait(); }

#endif  // AOE_TESTS_CUDA_HOST_EMULATION_HPP

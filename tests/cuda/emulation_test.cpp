// The project's CUDA kernels (the SGEMM of measure/cuda/gemm.hpp, the convolution of
// convolution.hpp) compute the right answer, proven without a GPU: their CUDA source is
// compiled as plain C++ with the emulation layer of host_emulation.hpp by the host's compiler
// ($CXX, else c++) into a driver program, which runs every block's threads as std::threads and
// writes the outputs back; they are verified against the host references with the kernels'
// own checks. Every instance is set up exactly as the CUDA runner sets it up for the device:
// the name expression (template arguments), the -D options, the launch geometry and the
// arguments all come from the aoe::cuda::Kernel. Each instance runs twice, its block's threads
// started in opposite orders, so that a missing barrier shows as a wrong answer.
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include <aoe/measure/cuda/convolution.hpp>
#include <aoe/measure/cuda/device.hpp>
#include <aoe/measure/cuda/gemm.hpp>
#include <aoe/measure/cuda/kernel.hpp>
#include <aoe/measure/cuda/known_devices.hpp>
#include <aoe/measure/kernel/check.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

// Last: its macros (__global__, __shared__ ...) must not reach the project's headers.
#include "cuda/host_emulation.hpp"

namespace cuda_emulation_test {  // apart from this area's other files in a unity build

namespace {

namespace fs = std::filesystem;

aoe::cuda::DeviceInfo h100() { return aoe::cuda::h100_sxm(); }

// tests/ of the source tree: where the driver program finds host_emulation.hpp. The
// environment's AOE_TESTS_SOURCE_DIR first: a test binary carried to another machine
// (scripts/gpu-check.sh) finds the sources where they are there.
fs::path tests_dir() {
  if (const char* dir = std::getenv("AOE_TESTS_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
#ifdef AOE_TESTS_SOURCE_DIR
  return AOE_TESTS_SOURCE_DIR;
#else
  return fs::absolute(fs::path(__FILE__)).parent_path().parent_path();
#endif
}

// The host's C++ compiler as a shell command: $CXX, else c++.
std::string compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx != nullptr && *cxx != '\0' ? cxx : "c++";
}

// Further options for the driver's compile from $AOE_EMULATION_FLAGS, e.g. a sanitizer
// ("-fsanitize=thread" to find data races, "-fsanitize=address,undefined" for accesses out of
// bounds or misaligned).
std::string extra_flags() {
  const char* flags = std::getenv("AOE_EMULATION_FLAGS");
  return flags != nullptr ? flags : "";
}

bool compiler_found() {
  return std::system((compiler() + " --version >/dev/null 2>&1").c_str()) == 0;
}

// A configuration of a kernel, emulated: the C++ that sets it up in the driver and what its
// launch needs.
struct Instance {
  std::string label;                                        // for messages
  std::string name;                                         // the __global__ function
  std::vector<std::pair<std::string, std::string>> macros;  // -D options, as #define lines
  std::string call;                                         // the kernel called with b[i]
  std::array<std::size_t, 3> grid{}, block{};
  std::vector<std::vector<float>> buffers;  // initial contents, in the kernel's order
  std::map<std::size_t, std::size_t> buffer_of_argument;
  std::vector<aoe::kernel::Check> checks;
};

// Configuration `c` of `kernel` as the CUDA runner launches it. Buffers are float vectors, the
// other arguments int32 scalars: what the project's kernels take.
Instance instance_of(const aoe::cuda::Kernel& kernel, const aoe::Space& space,
                     const aoe::Configuration& c) {
  Instance out;
  out.label = kernel.name + " " + space.to_string(c);
  out.name = kernel.name;
  for (const std::string& option : aoe::cuda::compile_options(kernel, space, c)) {
    REQUIRE(option.rfind("-D", 0) == 0);
    const auto eq = option.find('=');
    out.macros.emplace_back(option.substr(2, eq - 2),
                            eq == std::string::npos ? "1" : option.substr(eq + 1));
  }
  out.call = aoe::cuda::name_expression(kernel, space, c) + "(";
  for (std::size_t i = 0; i < kernel.arguments.size(); ++i) {
    const auto& argument = kernel.arguments[i];
    if (i > 0) out.call += ", ";
    if (const auto* buffer = std::get_if<std::vector<float>>(&argument)) {
      out.buffer_of_argument[i] = out.buffers.size();
      out.call += "b[" + std::to_string(out.buffers.size()) + "]";
      out.buffers.push_back(*buffer);
    } else {
      const auto* scalar = std::get_if<std::int32_t>(&argument);
      REQUIRE_MESSAGE(scalar != nullptr, "argument " << i << " is neither float[] nor int32");
      out.call += std::to_string(*scalar);
    }
  }
  out.call += ")";
  const aoe::kernel::Params params(space, c);
  out.grid = kernel.grid(params).size;
  out.block = kernel.block(params).size;
  out.checks = kernel.checks;
  return out;
}

// The driver program: every instance in a namespace of its own, its macros defined around a
// copy of the source; the kernel's name is renamed per instance as well, since an extern "C"
// function ignores namespaces. main() runs instance argv[1] on the buffers in argv[9]/in<i>.bin
// twice (threads started forward, then in reverse) and writes out<i>_<run>.bin; it fails when
// the kernel wrote next to a buffer.
std::string driver_source(const std::string& source, const std::vector<Instance>& instances) {
  std::string out = "#include \"" + (tests_dir() / "cuda" / "host_emulation.hpp").string() +
                    "\"\n\n#include <unistd.h>\n\n#include <cstdio>\n#include <cstdlib>\n"
                    "#include <cstring>\n#include <string>\n#include <vector>\n\n";
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const std::string n = std::to_string(i);
    out += "// " + instances[i].label + "\nnamespace instance_" + n + " {\n";
    const std::string& entry = instances[i].name;
    out += "#define " + entry + " " + entry + "_" + n + "\n";
    for (const auto& [name, value] : instances[i].macros) {
      out += "#define " + name + " " + value + "\n";
    }
    out += source;
    out +=
        "\nvoid run(dim3 grid, dim3 block, float* const* b, aoe::emulation::Order order) {\n"
        "  aoe::emulation::launch(grid, block, [&] { " +
        instances[i].call + "; }, order);\n}\n";
    out += "#undef " + entry + "\n";
    for (const auto& [name, value] : instances[i].macros) out += "#undef " + name + "\n";
    out += "}  // namespace instance_" + n + "\n\n";
  }
  out +=
      "using Run = void (*)(dim3, dim3, float* const*, aoe::emulation::Order);\n"
      "const Run runs[] = {";
  for (std::size_t i = 0; i < instances.size(); ++i) {
    out += (i > 0 ? ", " : "") + std::string("&instance_") + std::to_string(i) + "::run";
  }
  out += R"(};

// A buffer as cudaMalloc gives it, 256-byte aligned, between two guards of 256 bytes that the
// kernel must leave alone.
constexpr long kGuard = 256;
constexpr unsigned char kGuardByte = 0xa5;

struct Buffer {
  unsigned char* block = nullptr;
  long bytes = 0;
  float* data() const { return reinterpret_cast<float*>(block + kGuard); }
  bool guards_intact() const {
    const long end = kGuard + (bytes + kGuard - 1) / kGuard * kGuard;
    for (long i = 0; i < end + kGuard; ++i) {
      if ((i < kGuard || i >= kGuard + bytes) && block[i] != kGuardByte) return false;
    }
    return true;
  }
};

Buffer read_buffer(const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) std::exit(3);
  std::fseek(f, 0, SEEK_END);
  Buffer b;
  b.bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  const long size = kGuard + (b.bytes + kGuard - 1) / kGuard * kGuard + kGuard;
  b.block = static_cast<unsigned char*>(std::aligned_alloc(kGuard, size));
  std::memset(b.block, kGuardByte, size);
  if (std::fread(b.data(), 1, b.bytes, f) != static_cast<size_t>(b.bytes)) std::exit(3);
  std::fclose(f);
  return b;
}

int main(int argc, char** argv) {
  if (argc != 10) return 2;
  alarm(180);  // a block whose threads never meet at a barrier ends here, not in a hang
  const auto arg = [&](int i) { return static_cast<unsigned>(std::atoi(argv[i])); };
  const dim3 grid(arg(2), arg(3), arg(4));
  const dim3 block(arg(5), arg(6), arg(7));
  const int count = std::atoi(argv[8]);
  const std::string dir = argv[9];
  for (int run = 0; run < 2; ++run) {
    std::vector<Buffer> buffers;
    std::vector<float*> b;
    for (int i = 0; i < count; ++i) {
      buffers.push_back(read_buffer(dir + "/in" + std::to_string(i) + ".bin"));
      b.push_back(buffers.back().data());
    }
    runs[std::atoi(argv[1])](grid, block, b.data(),
                             run == 0 ? aoe::emulation::Order::forward
                                      : aoe::emulation::Order::reverse);
    for (int i = 0; i < count; ++i) {
      if (!buffers[i].guards_intact()) {
        std::fprintf(stderr, "the kernel wrote outside buffer %d\n", i);
        return 5;
      }
      const std::string file =
          dir + "/out" + std::to_string(i) + "_" + std::to_string(run) + ".bin";
      std::FILE* f = std::fopen(file.c_str(), "wb");
      if (f == nullptr ||
          std::fwrite(b[i], 1, buffers[i].bytes, f) != static_cast<size_t>(buffers[i].bytes)) {
        return 4;
      }
      std::fclose(f);
      std::free(buffers[i].block);
    }
  }
  return 0;
}
)";
  return out;
}

void write_floats(const std::string& file, const std::vector<float>& v) {
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()),
             static_cast<std::streamsize>(v.size() * sizeof(float)));
}

std::vector<double> read_floats(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<double> out;
  float x = 0;
  while (in.read(reinterpret_cast<char*>(&x), sizeof x)) out.push_back(x);
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Compiles every instance into one driver program and runs each one, twice, checking its
// outputs with the kernel's checks after both runs.
void emulate(const std::string& tag, const std::string& source,
             const std::vector<Instance>& instances) {
  const aoe::test::TempDir dir("cuda_emulation_" + tag);
  const std::string driver = dir.file("driver");
  const std::string log = dir.file("compile.log");
  const std::string program = dir.write("driver.cpp", driver_source(source, instances));
  const auto compile_start = std::chrono::steady_clock::now();
  // -fno-strict-aliasing: the kernels read and write float arrays as float2 and float4. The
  // sanitizer makes a misaligned vector access (an error on the device, not on x86) or an
  // index out of an array's bounds (shared memory, registers) fail the run; without its
  // runtime library (a Clang without compiler-rt) the driver is built without it.
  const std::string options = "-std=c++20 -O1 -pthread -fno-strict-aliasing " + extra_flags() +
                              " '" + program + "' -o '" + driver + "' >'" + log + "' 2>&1";
  std::string command =
      compiler() + " -fsanitize=alignment,bounds -fno-sanitize-recover=all " + options;
  int compiled = std::system(command.c_str());
  if (compiled != 0) {
    std::printf("  %s: built without -fsanitize=alignment,bounds: %s\n", tag.c_str(),
                aoe::test::read_text(log).c_str());
    command = compiler() + " " + options;
    compiled = std::system(command.c_str());
  }
  REQUIRE_MESSAGE(compiled == 0, command << "\n" << aoe::test::read_text(log));
  std::printf("  %s: %zu instances compiled in %.1f s\n", tag.c_str(), instances.size(),
              seconds_since(compile_start));
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const Instance& instance = instances[i];
    INFO(instance.label);
    const auto start = std::chrono::steady_clock::now();
    const fs::path work = dir.path() / ("instance_" + std::to_string(i));
    fs::create_directories(work);
    for (std::size_t b = 0; b < instance.buffers.size(); ++b) {
      write_floats((work / ("in" + std::to_string(b) + ".bin")).string(), instance.buffers[b]);
    }
    std::string run = "'" + driver + "' " + std::to_string(i);
    for (const std::size_t d : instance.grid) run += " " + std::to_string(d);
    for (const std::size_t d : instance.block) run += " " + std::to_string(d);
    const std::string run_log = (work / "run.log").string();
    run += " " + std::to_string(instance.buffers.size()) + " '" + work.string() + "' >'" + run_log +
           "' 2>&1";
    const int ran = std::system(run.c_str());
    std::printf("  %-100s %5.2f s\n", instance.label.c_str(), seconds_since(start));
    REQUIRE_MESSAGE(ran == 0, run << "\n" << aoe::test::read_text(run_log));
    for (const char* order : {"0", "1"}) {
      INFO("threads started " << std::string(order[0] == '0' ? "forward" : "in reverse"));
      const auto wrong = aoe::kernel::verify_outputs(
          instance.checks, [&](std::size_t argument, std::vector<double>& out) -> std::string {
            const auto b = instance.buffer_of_argument.find(argument);
            if (b == instance.buffer_of_argument.end()) return "not a float buffer";
            out = read_floats(
                (work / ("out" + std::to_string(b->second) + "_" + order + ".bin")).string());
            if (out.size() != instance.buffers[b->second].size()) return "short output";
            return "";
          });
      CHECK_MESSAGE(!wrong.has_value(), (wrong ? wrong->message : ""));
    }
  }
}

// The configuration of `space` with these values; fails the test when it is not valid.
aoe::Configuration valid(const aoe::Space& space, const std::vector<aoe::NamedValue>& values) {
  const auto c = space.find(values);
  REQUIRE(c.has_value());
  REQUIRE_MESSAGE(space.is_valid(*c), space.to_string(*c));
  return *c;
}

// A deterministic spread of `count` valid configurations of `space`: `anchors` first, then
// greedily the configuration that shows the most parameter values not yet shown, then ones
// spread over the enumeration order by a prime stride.
std::vector<aoe::Configuration> spread(const aoe::Space& space,
                                       std::vector<aoe::Configuration> anchors, std::size_t count) {
  std::vector<aoe::Configuration> all;
  space.for_each_valid([&](const aoe::Configuration& c) { all.push_back(c); });
  REQUIRE(all.size() >= count);
  std::set<std::pair<std::size_t, std::uint32_t>> shown;
  std::vector<aoe::Configuration> out;
  const auto take = [&](const aoe::Configuration& c) {
    for (const auto& o : out) {
      if (o == c) return;
    }
    for (std::size_t d = 0; d < space.dimensions(); ++d) shown.emplace(d, c[d]);
    out.push_back(c);
  };
  for (const auto& c : anchors) take(c);
  const auto unseen = [&](const aoe::Configuration& c) {
    std::size_t n = 0;
    for (std::size_t d = 0; d < space.dimensions(); ++d) n += shown.count({d, c[d]}) == 0;
    return n;
  };
  while (out.size() < count) {
    const aoe::Configuration* best = &all.front();
    for (const auto& c : all) {
      if (unseen(c) > unseen(*best)) best = &c;
    }
    if (unseen(*best) == 0) break;
    take(*best);
  }
  for (std::size_t i = 0; out.size() < count; ++i) take(all[(i * 7919) % all.size()]);
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    for (std::uint32_t level = 0; level < space.cardinality(d); ++level) {
      CHECK_MESSAGE(shown.count({d, level}) == 1,
                    space.parameter(d).name()
                        << " = " << space.parameter(d).level(level).to_string());
    }
  }
  return out;
}

// A kernel of the emulation's own: each block reverses its N values through shared memory.
template <int N>
__global__ void reverse_blocks(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int tile[N];
  const unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const unsigned base = ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * N;
  tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = tile[N - 1 - t];
}

}  // namespace

TEST_CASE("the CUDA emulation runs a block's threads together, with barriers") {
  for (const auto order : {aoe::emulation::Order::forward, aoe::emulation::Order::reverse}) {
    const dim3 grid(3, 2, 2);
    std::vector<int> in(12 * 1024);
    std::vector<int> out(in.size(), -1);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i);
    aoe::emulation::launch(
        grid, dim3(16, 8, 8), [&] { reverse_blocks<1024>(in.data(), out.data()); }, order);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      wrong += out[i] != in[i / 1024 * 1024 + 1023 - i % 1024];  // block i / 1024, reversed
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("the CUDA SGEMM computes C = A * B on a spread of configurations (emulated)") {
  if (!compiler_found()) {
    aoe::test::skip("no C++ compiler ('" + compiler() + "', from $CXX or c++) to emulate with");
    return;
  }
  using V = std::vector<aoe::NamedValue>;
  const aoe::Space space = aoe::cuda::gemm_space(4096, 4096, 4096, h100());
  const V known_good = {{"BM", 128}, {"BN", 128}, {"BK", 8},  {"TX", 16},   {"TY", 16},
                        {"VEC", 4},  {"DB", 1},   {"PAD", 4}, {"UNROLL", 8}};
  const V largest = {{"BM", 256}, {"BN", 128}, {"BK", 8},  {"TX", 16},   {"TY", 16},
                     {"VEC", 4},  {"DB", 1},   {"PAD", 4}, {"UNROLL", 8}};
  const V smallest = {{"BM", 32}, {"BN", 32}, {"BK", 8},  {"TX", 8},    {"TY", 8},
                      {"VEC", 2}, {"DB", 0},  {"PAD", 0}, {"UNROLL", 2}};
  const V threads_1024 = {{"BM", 128}, {"BN", 128}, {"BK", 16}, {"TX", 32},   {"TY", 32},
                          {"VEC", 2},  {"DB", 0},   {"PAD", 4}, {"UNROLL", 8}};
  const auto picks = spread(space,
                            {valid(space, known_good), valid(space, largest),
                             valid(space, smallest), valid(space, threads_1024)},
                            16);
  // Each configuration on a problem of 2 x 3 blocks and 5 steps of K: every block index and
  // both double buffers in use, M, N and K all different.
  std::vector<Instance> instances;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const aoe::kernel::Params p(space, picks[i]);
    const auto problem = aoe::cuda::gemm_problem(2 * p["BM"], 3 * p["BN"], 5 * p["BK"]);
    const aoe::Space problem_space = aoe::cuda::gemm_space(problem.m, problem.n, problem.k, h100());
    REQUIRE(problem_space.is_valid(picks[i]));
    aoe::cuda::Kernel kernel = aoe::cuda::gemm_kernel(problem);
    instances.push_back(instance_of(kernel, problem_space, picks[i]));
    // The anchors through the defines-only entry too, every parameter a macro.
    if (i < 4) {
      kernel.name = "aoe_gemm_defines";
      kernel.template_arguments.clear();
      kernel.defines.emplace_back("AOE_GEMM_DEFINES_ENTRY", "1");
      instances.push_back(instance_of(kernel, problem_space, picks[i]));
    }
  }
  emulate("gemm", aoe::cuda::gemm_source, instances);
}

TEST_CASE("the CUDA convolution computes its output on a spread of configurations (emulated)") {
  if (!compiler_found()) {
    aoe::test::skip("no C++ compiler ('" + compiler() + "', from $CXX or c++) to emulate with");
    return;
  }
  using V = std::vector<aoe::NamedValue>;
  // Block and tile extremes, sizes that are no powers of two, 1024 threads, with and without
  // the shared tile; a 7 x 5 filter (its height and width apart).
  const std::vector<V> picks = {
      {{"BLOCK_X", 16}, {"BLOCK_Y", 1}, {"TILE_X", 1}, {"TILE_Y", 1}, {"USE_SHARED", 0}},
      {{"BLOCK_X", 16}, {"BLOCK_Y", 1}, {"TILE_X", 1}, {"TILE_Y", 1}, {"USE_SHARED", 1}},
      {{"BLOCK_X", 32}, {"BLOCK_Y", 8}, {"TILE_X", 2}, {"TILE_Y", 4}, {"USE_SHARED", 1}},
      {{"BLOCK_X", 48}, {"BLOCK_Y", 4}, {"TILE_X", 3}, {"TILE_Y", 2}, {"USE_SHARED", 1}},
      {{"BLOCK_X", 64}, {"BLOCK_Y", 16}, {"TILE_X", 7}, {"TILE_Y", 1}, {"USE_SHARED", 0}},
      {{"BLOCK_X", 112}, {"BLOCK_Y", 1}, {"TILE_X", 8}, {"TILE_Y", 5}, {"USE_SHARED", 1}},
      {{"BLOCK_X", 128}, {"BLOCK_Y", 8}, {"TILE_X", 1}, {"TILE_Y", 2}, {"USE_SHARED", 0}},
      {{"BLOCK_X", 128}, {"BLOCK_Y", 8}, {"TILE_X", 1}, {"TILE_Y", 1}, {"USE_SHARED", 1}},
  };
  std::vector<Instance> instances;
  for (const V& pick : picks) {
    std::map<std::string, std::int64_t> v;
    for (const auto& [name, value] : pick) v[name] = static_cast<std::int64_t>(value.as_real());
    // 2 x 3 blocks of the configuration's output tile.
    const auto problem = aoe::cuda::convolution_problem(3 * v["BLOCK_Y"] * v["TILE_Y"],
                                                        2 * v["BLOCK_X"] * v["TILE_X"], 7, 5);
    const aoe::Space space = aoe::cuda::convolution_space(problem, h100());
    instances.push_back(
        instance_of(aoe::cuda::convolution_kernel(problem), space, valid(space, pick)));
  }
  emulate("convolution", aoe::cuda::convolution_source, instances);
}

}  // namespace cuda_emulation_test

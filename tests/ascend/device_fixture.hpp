// Shared by the backend tests: a kernel catalogue with one MatMul kernel, the MatMul it fits, and
// a runner on the AscendCL test double.
#ifndef AOE_TESTS_ASCEND_DEVICE_FIXTURE_HPP
#define AOE_TESTS_ASCEND_DEVICE_FIXTURE_HPP

#include "ascend/acl_double.hpp"
#include "support/temp_dir.hpp"
#include <aoe/measure/ascend/ascend_runner.hpp>
#include <aoe/measure/ascend/kernel_catalog.hpp>
#include <aoe/op/operator_desc.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace aoe::test {

// A MatMul kernel whose tiling struct is {int32 m, n, k; uint32 base_m; float scale}.
inline const char* const catalogue_json = R"({
  "kernels": [{
    "op_type": "MatMul",
    "binary": "matmul_custom.o",
    "kernel": "matmul_custom",
    "parameters": [{"name": "block_dim", "values": [1, 2, 4, 8]},
                   {"name": "base_m", "values": [16, 32, 64]}],
    "default": {"block_dim": 2},
    "block_dim": "block_dim",
    "workspace_bytes": 1024,
    "tiling": [{"name": "m", "type": "int32", "value": "input0.dim0"},
               {"name": "n", "type": "int32", "value": "output0.dim1"},
               {"name": "k", "type": "int32_t", "value": "input1.dim0"},
               {"name": "base_m", "type": "uint32", "value": "base_m"},
               {"name": "scale", "type": "float", "value": 0.5}]
  }]
})";

inline aoe::OperatorDesc matmul_op(aoe::Format format = aoe::Format::ND) {
  using aoe::DataType;
  return aoe::OperatorDesc{.type = "MatMul",
                           .name = "mm",
                           .inputs = {{{64, 48}, DataType::float16, format},
                                      {{48, 32}, DataType::float16, format},
                                      {{32}, DataType::float16, aoe::Format::ND}},
                           .outputs = {{{64, 32}, DataType::float16, format}},
                           .attributes = {{"transpose_x1", false}},
                           .members = {}};
}

struct Device {
  aoe::test::TempDir dir;
  aoe::test::AclDouble acl;
  aoe::AscendRunner runner;
  explicit Device(const std::string& tag, std::size_t repetitions = 2)
      : dir(tag), runner(open(acl, dir, repetitions)) {}
  static aoe::AscendRunner open(aoe::test::AclDouble& acl, const aoe::test::TempDir& dir,
                                std::size_t repetitions) {
    auto r = aoe::AscendRunner::open(
        acl.api(),
        {.device_id = 0, .warmup = 1, .repetitions = repetitions, .lock_directory = dir.path()});
    REQUIRE(r.has_value());
    return *r;
  }
  aoe::ascend::KernelCatalog catalogue() const {
    dir.write("matmul_custom.o", "kernel");
    auto c = aoe::ascend::KernelCatalog::parse(catalogue_json, dir.path() / "kernels.json");
    REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().message));
    return *c;
  }
};

inline std::int32_t int32_at(const std::vector<std::byte>& b, std::size_t offset) {
  std::int32_t v = 0;
  std::memcpy(&v, b.data() + offset, 4);
  return v;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_ASCEND_DEVICE_FIXTURE_HPP

// The kernel catalogue and AscendBackend on the AscendCL test double: OPAT's Schedule, Format
// and Impl mapped onto kernel launches and single-operator compiles (opat_device_test.cpp runs
// a whole OPAT job on the double).
#if __has_include(<acl/acl.h>)

#include "ascend/device_fixture.hpp"
#include "support/temp_dir.hpp"
#include <aoe/measure/ascend/ascend_backend.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ascend_backend_test {  // apart from this area's other files in a unity build

namespace {

using aoe::KnowledgeKind;
using aoe::test::catalogue_json;
using aoe::test::Device;
using aoe::test::int32_at;
using aoe::test::matmul_op;
using Call = aoe::test::AclDouble::Call;
namespace as = aoe::ascend;

}  // namespace

TEST_CASE("kernel catalogue: reads kernels, parameters, defaults and tiling fields") {
  aoe::test::TempDir dir("ascend_catalogue");
  const auto c = as::KernelCatalog::parse(catalogue_json, dir.path() / "kernels.json");
  REQUIRE(c.has_value());
  REQUIRE(c->kernels.size() == 1);
  const as::KernelEntry& e = c->kernels[0];
  CHECK(c->find("MatMul") == &e);
  CHECK(c->find("Add") == nullptr);
  CHECK(e.binary == dir.path() / "matmul_custom.o");
  CHECK(e.kernel == "matmul_custom");
  const aoe::Space s = e.space();
  CHECK(s.dimensions() == 2);
  CHECK(e.default_configuration(s) == aoe::Configuration{1, 0});  // block_dim 2, base_m first
  REQUIRE(e.tiling.size() == 5);
  CHECK(e.tiling[2].type == as::TilingType::int32);
  CHECK(e.tiling[4].type == as::TilingType::float32);
  CHECK(e.workspace_bytes == 1024);
}

TEST_CASE("kernel catalogue: errors name the file and the JSON pointer") {
  const auto error = [](const std::string& json) {
    auto c = as::KernelCatalog::parse(json, "k.json");
    REQUIRE_FALSE(c.has_value());
    return c.error().message;
  };
  CHECK(error("{").find("k.json:1:2: expected well-formed JSON") == 0);
  CHECK(error("[]") == "k.json: /: expected an object {\"kernels\": [...]}");
  const std::string head =
      R"({"kernels": [{"op_type": "Add", "binary": "a.o", "kernel": "add",
          "parameters": [{"name": "b", "values": [1, 2]}], "block_dim": )";
  CHECK(error(head + R"("b", "tiling": [{"name": "x", "type": "int33", "value": 1}]}]})") ==
        "k.json: /kernels/0/tiling/0/type: expected one of int8, uint8, int16, uint16, int32, "
        "uint32, int64, uint64, float32");
  CHECK(error(head + R"("b", "tiling": [{"name": "x", "type": "int32", "value": "tile"}]}]})") ==
        "k.json: /kernels/0/tiling/0/value: expected a parameter of this kernel or inputN.dimK, "
        "inputN.elements, outputN.dimK, outputN.elements; got 'tile'");
  CHECK(error(head + R"("b", "default": {"b": 3}}]})") ==
        "k.json: /kernels/0/default/b: expected one of the values of parameter 'b'");
  CHECK(error(R"({"kernels": [{"op_type": "Add", "binary": "a.o", "kernel": "add",
                 "parameters": [], "block_dim": 1},
                {"op_type": "Add", "binary": "b.o", "kernel": "add", "parameters": [],
                 "block_dim": 1}]})") ==
        "k.json: /kernels/1/op_type: expected one kernel per operator type ('Add' comes twice)");
  CHECK(error(R"({"kernels": [{"op_type": "Add", "kernel": "add"}]})") ==
        "k.json: /kernels/0/binary: expected a string (the kernel binary's path)");
  auto missing = as::KernelCatalog::load("/nonexistent/kernels.json");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == aoe::make_error_code(aoe::Errc::not_found));
}

TEST_CASE("ascend backend: Schedule is the tiling and block dim of the operator's kernel") {
  Device d("ascend_schedule");
  aoe::AscendBackend backend(d.runner, d.catalogue());
  CHECK(backend.scope().soc_version == "Ascend910B1");
  CHECK(backend.scope().core_num == 24);
  auto runner = backend.create(matmul_op(), KnowledgeKind::schedule);
  REQUIRE(runner.has_value());
  CHECK(runner->space().dimensions() == 2);
  CHECK(runner->default_configuration() == aoe::Configuration{1, 0});
  const aoe::Measurement m = runner->evaluate({3, 2});  // block_dim 8, base_m 64
  REQUIRE_MESSAGE(m.ok(), m.message);
  const auto launch = d.acl.launches().back();
  CHECK(launch.name == "matmul_custom");
  CHECK(launch.block_dim == 8);
  // x1, x2, bias, y, workspace, tiling
  REQUIRE(launch.arguments.size() == 6);
  CHECK(launch.arguments[0].size() == 64 * 48 * 2);
  CHECK(launch.arguments[4].size() == 1024);
  const auto& tiling = launch.arguments[5];
  REQUIRE(tiling.size() == 20);
  CHECK(int32_at(tiling, 0) == 64);
  CHECK(int32_at(tiling, 4) == 32);
  CHECK(int32_at(tiling, 8) == 48);
  CHECK(int32_at(tiling, 12) == 64);
  float scale = 0;
  std::memcpy(&scale, tiling.data() + 16, 4);
  CHECK(scale == 0.5F);
  // The kernel is loaded once per operator type.
  auto again = backend.create(matmul_op(), KnowledgeKind::schedule);
  REQUIRE(again.has_value());
  CHECK(d.acl.calls(Call::binary_load) == 1);

  // No kernel for the type: nothing to tune.
  aoe::OperatorDesc add = matmul_op();
  add.type = "Add";
  auto none = backend.create(add, KnowledgeKind::schedule);
  REQUIRE(none.has_value());
  CHECK(none->space().dimensions() == 0);
  // A catalogue entry that does not fit the operator: an error for that operator.
  aoe::OperatorDesc one_input = matmul_op();
  one_input.inputs.resize(1);
  auto misfit = backend.create(one_input, KnowledgeKind::schedule);
  REQUIRE_FALSE(misfit.has_value());
  CHECK(misfit.error().message.find("'input1.dim0': operator 'mm' (MatMul) has 1 input(s)") !=
        std::string::npos);
}

TEST_CASE("ascend backend: Format is the storage format of the operator's descriptors") {
  Device d("ascend_format_kind");
  aoe::AscendBackend backend(d.runner);
  auto runner = backend.create(matmul_op(), KnowledgeKind::format);
  REQUIRE(runner.has_value());
  REQUIRE(runner->space().dimensions() == 1);
  CHECK(runner->space().parameter(0).name() == "format");
  CHECK(runner->default_configuration() == aoe::Configuration{0});
  REQUIRE(runner->evaluate({1}).ok());
  auto descs = d.acl.compiled_descs();
  REQUIRE(descs.size() == 4);
  CHECK(descs[0].storage_format == ACL_FORMAT_FRACTAL_NZ);
  CHECK(descs[1].storage_format == ACL_FORMAT_FRACTAL_NZ);
  CHECK(descs[2].storage_format == ACL_FORMAT_ND);  // the bias stays ND
  CHECK(descs[3].storage_format == ACL_FORMAT_FRACTAL_NZ);
  CHECK(d.acl.launches().back().impl_mode == "high_performance");
  REQUIRE(runner->evaluate({0}).ok());
  descs = d.acl.compiled_descs();
  CHECK(descs[0].storage_format == ACL_FORMAT_ND);
  CHECK(descs[0].format == ACL_FORMAT_ND);
  // A graph that already gives FRACTAL_NZ: the default is NZ, the origin view ND.
  auto nz = backend.create(matmul_op(aoe::Format::FRACTAL_NZ), KnowledgeKind::format);
  REQUIRE(nz.has_value());
  CHECK(nz->default_configuration() == aoe::Configuration{1});
  // Types Format does not tune, and fused operators: nothing to tune.
  aoe::OperatorDesc relu = matmul_op();
  relu.type = "Relu";
  CHECK(backend.create(relu, KnowledgeKind::format)->space().dimensions() == 0);
  aoe::OperatorDesc fused = matmul_op();
  fused.type = "MatMul+Relu";
  fused.members = {"MatMul", "Relu"};
  CHECK(backend.create(fused, KnowledgeKind::format)->space().dimensions() == 0);
}

TEST_CASE("ascend backend: Impl is the implementation mode the operator is compiled with") {
  Device d("ascend_impl_kind");
  aoe::AscendBackend backend(d.runner, {}, {.impl_mode = "high_precision"});
  aoe::OperatorDesc gelu{.type = "Gelu",
                         .name = "g",
                         .inputs = {{{8, 128}, aoe::DataType::float16, aoe::Format::ND}},
                         .outputs = {{{8, 128}, aoe::DataType::float16, aoe::Format::ND}},
                         .attributes = {},
                         .members = {}};
  auto runner = backend.create(gelu, KnowledgeKind::impl);
  REQUIRE(runner.has_value());
  REQUIRE(runner->space().dimensions() == 1);
  CHECK(runner->space().parameter(0).name() == "impl_mode");
  CHECK(runner->default_configuration() == aoe::Configuration{1});  // the options' mode
  REQUIRE(runner->evaluate({0}).ok());
  CHECK(d.acl.launches().back().impl_mode == "high_performance");
  REQUIRE(runner->evaluate({1}).ok());
  CHECK(d.acl.launches().back().impl_mode == "high_precision");
  gelu.inputs[0].dtype = aoe::DataType::int32;
  CHECK(backend.create(gelu, KnowledgeKind::impl)->space().dimensions() == 0);
}

}  // namespace ascend_backend_test

#elif defined(AOE_ASCEND_TESTS_REQUIRE_ACL)
#error "tests/ascend needs AscendCL's declarations: CANN, or tests/ascend/fake_cann/include"
#else
#include "support/skip.hpp"

#include <doctest/doctest.h>
TEST_CASE("ascend backend: needs AscendCL declarations on the include path") {
  aoe::test::skip("the Ascend tests are built by CMake (tests/ascend/fake_cann); Meson skips them");
}
#endif

// Tests on a real NPU (test suite and ctest label "npu"): built with AOE_WITH_ASCEND=ON, they
// open ASCEND_DEVICE_ID (default 0) with the real AscendCL; with no device, or in a build
// without CANN, each says why and is reported as skipped (support/skip.hpp). docs/ascend.md
// ("Running the npu tests").
#include "support/skip.hpp"

#include <doctest/doctest.h>

#if defined(AOE_WITH_ASCEND)

#include <aoe/measure/ascend/ascend_runner.hpp>
#include <aoe/measure/ascend/real_acl_api.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace {

// The real device, or nullopt after skipping the test case with the reason.
std::optional<aoe::AscendRunner> open_npu() {
  auto r = aoe::AscendRunner::open(aoe::ascend::real_acl_api(), {.warmup = 2, .repetitions = 10});
  if (!r) {
    aoe::test::skip(std::string("no usable NPU: ") + r.error().what());
    return std::nullopt;
  }
  return *r;
}

aoe::ascend::OpCall add_fp16(std::int64_t n) {
  const aoe::TensorDesc t{{n}, aoe::DataType::float16, aoe::Format::ND};
  return {.type = "Add", .inputs = {{t}, {t}}, .outputs = {{t}}};
}

}  // namespace

TEST_CASE("npu: a single Add is compiled and timed on the device" * doctest::test_suite("npu")) {
  auto npu = open_npu();
  if (!npu) return;
  MESSAGE("device " << npu->device_id() << ": " << npu->soc_name() << ", " << npu->ai_core_count()
                    << " AI Cores");
  const aoe::Measurement small = npu->run(add_fp16(1 << 10));
  REQUIRE_MESSAGE(small.ok(), small.message);
  CHECK(small.samples.size() == 10);
  CHECK(small.value > 0);
  const aoe::Measurement large = npu->run(add_fp16(1 << 24));
  REQUIRE_MESSAGE(large.ok(), large.message);
  MESSAGE("Add fp16: 2^10 elements " << small.value * 1e6 << " us, 2^24 elements "
                                     << large.value * 1e6 << " us");
  // An unknown operator type fails to compile, as a measurement.
  aoe::ascend::OpCall bogus = add_fp16(16);
  bogus.type = "NoSuchOperatorType";
  CHECK(npu->run(bogus).status == aoe::Status::compile);
}

TEST_CASE("npu: a second runner on the same device is refused" * doctest::test_suite("npu")) {
  auto npu = open_npu();
  if (!npu) return;
  auto second =
      aoe::AscendRunner::open(aoe::ascend::real_acl_api(), {.device_id = npu->device_id()});
  REQUIRE_FALSE(second.has_value());
  CHECK(second.error().code == aoe::make_error_code(aoe::Errc::busy));
}

#else

TEST_CASE("npu: the npu tests need AOE_WITH_ASCEND" * doctest::test_suite("npu")) {
  aoe::test::skip(
      "this build has no AscendCL (configure with -DAOE_WITH_ASCEND=ON on a machine with CANN "
      "and an NPU to run the npu tests; docs/ascend.md)");
}

#endif

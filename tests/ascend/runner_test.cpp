// Runner<device::Ascend> on the AscendCL test double: every path of opening a device,
// compiling and timing single operators, launching Ascend C kernels, failing candidates, the
// device lock and the release of every resource.
#if __has_include(<acl/acl.h>)

#include "ascend/acl_double.hpp"
#include "support/temp_dir.hpp"
#include <aoe/jobs/parallel_measure.hpp>
#include <aoe/measure/ascend/ascend_runner.hpp>
#include <aoe/measure/ascend/rank_device.hpp>
#include <aoe/measure/ascend/tiling_data.hpp>
#include <aoe/space/parameter.hpp>

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace ascend_runner_test {  // apart from this area's other files in a unity build

namespace {

using aoe::AscendOptions;
using aoe::AscendRunner;
using aoe::Measurement;
using aoe::Status;
using Call = aoe::test::AclDouble::Call;
namespace as = aoe::ascend;

// Options with the lock files in a private directory, so tests never meet a real tuner's lock.
AscendOptions options(const aoe::test::TempDir& dir, std::size_t warmup = 1,
                      std::size_t repetitions = 5) {
  return AscendOptions{
      .device_id = 0, .warmup = warmup, .repetitions = repetitions, .lock_directory = dir.path()};
}

as::OpCall matmul(std::int64_t m = 64, std::int64_t n = 32, std::int64_t k = 48) {
  using aoe::DataType;
  using aoe::Format;
  return as::OpCall{.type = "MatMul",
                    .inputs = {{{{m, k}, DataType::float16, Format::ND}},
                               {{{k, n}, DataType::float16, Format::ND}}},
                    .outputs = {{{{m, n}, DataType::float16, Format::ND}}},
                    .attributes = {{"transpose_x1", false}, {"transpose_x2", false}},
                    .impl_mode = "high_performance"};
}

}  // namespace

TEST_CASE("ascend runner: opening sets up device, context, stream and events once") {
  aoe::test::TempDir dir("ascend_open");
  aoe::test::AclDouble acl;
  {
    auto r = AscendRunner::open(acl.api(), options(dir));
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
    CHECK(r->device_id() == 0);
    CHECK(r->soc_name() == "Ascend910B1");
    CHECK(r->ai_core_count() == 24);
    CHECK(acl.calls(Call::acl_init) == 1);
    CHECK(acl.calls(Call::set_device) == 1);
    CHECK(acl.calls(Call::create_context) == 1);
    CHECK(acl.calls(Call::create_stream) == 1);
    CHECK(acl.calls(Call::create_event) == 2);
    CHECK(acl.live() == "acl_init=1, devices=1, contexts=1, streams=1, events=2");
    const AscendRunner copy = *r;  // shares the device
    CHECK(copy.device_id() == 0);
  }
  CHECK(acl.live().empty());
  CHECK(acl.calls(Call::acl_finalize) == 1);
  CHECK(acl.calls(Call::reset_device) == 1);
}

TEST_CASE("ascend runner: ASCEND_DEVICE_ID selects the device") {
  aoe::test::TempDir dir("ascend_env");
  aoe::test::AclDouble acl;
  acl.device_count = 2;
  AscendOptions o = options(dir);
  o.device_id.reset();
  o.getenv = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "ASCEND_DEVICE_ID") return "1";
    return std::nullopt;
  };
  {
    auto r = AscendRunner::open(acl.api(), o);
    REQUIRE(r.has_value());
    CHECK(r->device_id() == 1);
    CHECK(acl.device_set() == 1);
  }
  o.getenv = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "ASCEND_DEVICE_ID") return "5";
    return std::nullopt;
  };
  auto r = AscendRunner::open(acl.api(), o);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  CHECK(r.error().message ==
        "ASCEND_DEVICE_ID=5: this machine has 2 Ascend device(s), numbered 0 to 1");
  o.getenv = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "ASCEND_DEVICE_ID") return "x";
    return std::nullopt;
  };
  auto bad = AscendRunner::open(acl.api(), o);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("ASCEND_DEVICE_ID='x'") != std::string::npos);
  CHECK(acl.live().empty());
}

TEST_CASE("ascend runner: each rank of a node opens ASCEND_DEVICE_ID plus its node-local rank") {
  aoe::test::TempDir dir("ascend_rank");
  aoe::test::AclDouble acl;
  acl.device_count = 4;
  AscendOptions base = options(dir);
  base.device_id.reset();
  base.getenv = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "ASCEND_DEVICE_ID") return "1";
    return std::nullopt;
  };
  for (int local = 0; local < 3; ++local) {
    auto o = as::rank_device_options(base, local);
    REQUIRE(o.has_value());
    CHECK(o->device_id == 1 + local);
    CHECK(o->device_origin == "ASCEND_DEVICE_ID=1 + node-local rank " + std::to_string(local));
    auto r = AscendRunner::open(acl.api(), *o);
    REQUIRE(r.has_value());
    CHECK(r->device_id() == 1 + local);
    CHECK(acl.device_set() == 1 + local);
  }
  // Without ASCEND_DEVICE_ID the base is 0; an explicit device_id is the base instead.
  base.getenv = [](const char*) -> std::optional<std::string> { return std::nullopt; };
  CHECK(as::rank_device_options(base, 2)->device_id == 2);
  AscendOptions explicit_base = options(dir);
  explicit_base.device_id = 2;
  auto e = as::rank_device_options(explicit_base, 1);
  REQUIRE(e.has_value());
  CHECK(e->device_id == 3);
  CHECK(e->device_origin == "AscendOptions::device_id=2 + node-local rank 1");
  // A rank past the machine's devices: the error says which rank and which device.
  base.getenv = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "ASCEND_DEVICE_ID") return "2";
    return std::nullopt;
  };
  auto beyond = as::rank_device_options(base, 2);
  REQUIRE(beyond.has_value());
  auto r = AscendRunner::open(acl.api(), *beyond);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  CHECK(r.error().message ==
        "ASCEND_DEVICE_ID=2 + node-local rank 2 = device 4: this machine has 4 Ascend device(s), "
        "numbered 0 to 3");
  // Bad input is refused before any device is touched.
  CHECK(as::rank_device_options(base, -1).error().message.find("node-local rank -1") !=
        std::string::npos);
  base.getenv = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "ASCEND_DEVICE_ID") return "x";
    return std::nullopt;
  };
  CHECK(as::rank_device_options(base, 0).error().message.find("ASCEND_DEVICE_ID='x'") !=
        std::string::npos);
  CHECK(acl.live().empty());
}

TEST_CASE("ascend runner: no device, and ACL failures while opening release everything") {
  aoe::test::TempDir dir("ascend_open_fail");
  {
    aoe::test::AclDouble acl;
    acl.device_count = 0;
    auto r = AscendRunner::open(acl.api(), options(dir));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::device_error));
    CHECK(r.error().message.find("no Ascend device found") != std::string::npos);
    CHECK(acl.live().empty());
  }
  // Every step of opening, failing in turn: an error with the ACL code and name, and nothing
  // left behind (the device can be opened again at once).
  const std::vector<Call> steps{
      Call::acl_init,       Call::get_device_count,     Call::set_device,
      Call::create_context, Call::set_current_context,  Call::create_stream,
      Call::create_event,   Call::get_device_capability};
  for (const Call step : steps) {
    aoe::test::AclDouble acl;
    acl.fail(step, 500003, 0, 1);                                  // ACL_ERROR_RT_FAILURE
    if (step == Call::create_event) acl.fail(step, 500003, 1, 1);  // the second event
    auto r = AscendRunner::open(acl.api(), options(dir));
    CAPTURE(static_cast<int>(step));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == as::make_acl_error_code(500003));
    CHECK(r.error().message.find("ACL_ERROR_RT_FAILURE (500003)") != std::string::npos);
    CHECK(r.error().message.find("EZ9999") != std::string::npos);  // aclGetRecentErrMsg
    CHECK(acl.live().empty());
    auto again = AscendRunner::open(acl.api(), options(dir));
    CHECK(again.has_value());
  }
}

TEST_CASE("ascend runner: device busy - one tuner per device, in and across processes") {
  aoe::test::TempDir dir("ascend_busy");
  aoe::test::AclDouble acl;
  acl.device_count = 2;
  auto first = AscendRunner::open(acl.api(), options(dir));
  REQUIRE(first.has_value());
  auto second = AscendRunner::open(acl.api(), options(dir));
  REQUIRE_FALSE(second.has_value());
  CHECK(second.error().code == aoe::make_error_code(aoe::Errc::busy));
  CHECK(second.error().message.rfind("device busy: Ascend device 0 is already open", 0) == 0);
  AscendOptions other = options(dir);
  other.device_id = 1;
  CHECK(AscendRunner::open(acl.api(), other).has_value());  // another device is free

  // Another process sees the file lock.
  const std::string lock = as::DeviceLock::path(dir.path(), 0).string();
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open(lock.c_str(), O_RDONLY);
    const int locked = fd >= 0 ? ::flock(fd, LOCK_EX | LOCK_NB) : 0;
    ::_exit(fd >= 0 && locked != 0 && errno == EWOULDBLOCK ? 0 : 1);
  }
  int status = 1;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));

  // The message names the holder when the lock is another process's.
  {
    const int fd = ::open(as::DeviceLock::path(dir.path(), 1).c_str(), O_RDWR | O_CREAT, 0666);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    REQUIRE(::write(fd, "4242\n", 5) == 5);
    auto busy = as::DeviceLock::acquire(1, dir.path());
    ::close(fd);
    REQUIRE_FALSE(busy.has_value());
    CHECK(busy.error().message.find("in use by another tuner (process 4242)") != std::string::npos);
  }

  first = AscendRunner::open(acl.api(), other);  // device 1 now; device 0 is given back
  CHECK(first.has_value());
  CHECK(AscendRunner::open(acl.api(), options(dir)).has_value());
}

TEST_CASE("ascend runner: a single operator is compiled, warmed up and timed with events") {
  aoe::test::TempDir dir("ascend_op");
  aoe::test::AclDouble acl;
  acl.duration_ms = [](const aoe::test::AclDouble::Launch&) { return 2.5; };
  auto r = AscendRunner::open(acl.api(), options(dir, 2, 5));
  REQUIRE(r.has_value());
  const Measurement m = r->run(matmul());
  REQUIRE_MESSAGE(m.ok(), m.message);
  CHECK(acl.calls(Call::compile) == 1);
  CHECK(acl.calls(Call::execute) == 7);  // 2 warm-up + 5 timed
  CHECK(acl.calls(Call::record_event) == 10);
  CHECK(acl.calls(Call::event_elapsed_time) == 5);
  REQUIRE(m.samples.size() == 5);
  for (const double s : m.samples) CHECK(s == doctest::Approx(0.0025));
  CHECK(m.value == doctest::Approx(0.0025));
  CHECK(m.cost >= 0);
  const auto launches = acl.launches();
  REQUIRE(launches.size() == 7);
  CHECK(launches[0].name == "MatMul");
  CHECK(launches[0].impl_mode == "high_performance");
  const auto descs = acl.compiled_descs();
  REQUIRE(descs.size() == 3);
  CHECK(descs[0].dtype == ACL_FLOAT16);
  CHECK(descs[0].format == ACL_FORMAT_ND);
  CHECK(descs[0].dims == std::vector<std::int64_t>{64, 48});
  CHECK(descs[2].dims == std::vector<std::int64_t>{64, 32});
  CHECK(acl.compiled_attrs() ==
        std::map<std::string, std::string>{{"transpose_x1", "b:0"}, {"transpose_x2", "b:0"}});
  // Buffers: one per tensor, storage bytes, released after the measurement.
  const std::size_t half = 2;  // bytes of a float16
  CHECK(acl.allocation_sizes() ==
        std::vector<std::size_t>{half * 64 * 48, half * 48 * 32, half * 64 * 32});
  CHECK(acl.live_per_call().empty());
}

TEST_CASE("ascend double: an event's time is refused until the event was synchronised") {
  aoe::test::AclDouble acl;
  const as::AclApi& api = acl.api();
  aclrtEvent start = nullptr;
  aclrtEvent stop = nullptr;
  REQUIRE(api.aclrt_create_event(&start) == ACL_SUCCESS);
  REQUIRE(api.aclrt_create_event(&stop) == ACL_SUCCESS);
  float ms = -1;
  REQUIRE(api.aclrt_record_event(start, nullptr) == ACL_SUCCESS);
  REQUIRE(api.aclrt_record_event(stop, nullptr) == ACL_SUCCESS);
  CHECK(api.aclrt_event_elapsed_time(&ms, start, stop) == 507006);  // EVENT_NOT_COMPLETE
  CHECK(ms == -1);
  REQUIRE(api.aclrt_synchronize_event_with_timeout(start, -1) == ACL_SUCCESS);
  CHECK(api.aclrt_event_elapsed_time(&ms, start, stop) == 507006);  // the start only
  REQUIRE(api.aclrt_synchronize_event_with_timeout(stop, -1) == ACL_SUCCESS);
  CHECK(api.aclrt_event_elapsed_time(&ms, start, stop) == ACL_SUCCESS);
  // Recorded again: not complete until the stream is synchronised.
  REQUIRE(api.aclrt_record_event(stop, nullptr) == ACL_SUCCESS);
  CHECK(api.aclrt_event_elapsed_time(&ms, start, stop) == 507006);
  REQUIRE(api.aclrt_synchronize_stream_with_timeout(nullptr, -1) == ACL_SUCCESS);
  CHECK(api.aclrt_event_elapsed_time(&ms, start, stop) == ACL_SUCCESS);
  REQUIRE(api.aclrt_destroy_event(start) == ACL_SUCCESS);
  REQUIRE(api.aclrt_destroy_event(stop) == ACL_SUCCESS);
}

TEST_CASE("ascend runner: each timed run synchronises its stop event before reading the time") {
  aoe::test::TempDir dir("ascend_sync");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir, 0, 3));
  REQUIRE(r.has_value());
  const Measurement m = r->run(matmul());
  // The double refuses aclrtEventElapsedTime on an event that was not synchronised, so a
  // runner that read the time first would measure nothing.
  REQUIRE_MESSAGE(m.ok(), m.message);
  CHECK(m.samples.size() == 3);
  CHECK(acl.calls(Call::synchronize_event) == 3);
  CHECK(acl.calls(Call::event_elapsed_time) == 3);
}

TEST_CASE("ascend runner: storage formats and attribute types reach the descriptors") {
  aoe::test::TempDir dir("ascend_format");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir));
  REQUIRE(r.has_value());
  as::OpCall call = matmul(100, 30, 48);
  for (auto* t : {&call.inputs[0], &call.inputs[1], &call.outputs[0]}) {
    auto nz = as::stored_as(t->desc, aoe::Format::FRACTAL_NZ);
    REQUIRE(nz.has_value());
    *t = *nz;
  }
  call.attributes = {{"b", true},
                     {"i", std::int64_t{3}},
                     {"f", 0.5},
                     {"s", std::string("NCHW")},
                     {"l", std::vector<std::int64_t>{1, 2}}};
  const Measurement m = r->run(call);
  REQUIRE_MESSAGE(m.ok(), m.message);
  const auto descs = acl.compiled_descs();
  REQUIRE(descs.size() == 3);
  CHECK(descs[0].format == ACL_FORMAT_ND);  // origin view
  CHECK(descs[0].storage_format == ACL_FORMAT_FRACTAL_NZ);
  // ND [100, 48] -> NZ [ceil(48/16), ceil(100/16), 16, 16]
  CHECK(descs[0].storage_dims == std::vector<std::int64_t>{3, 7, 16, 16});
  CHECK(descs[2].storage_dims == std::vector<std::int64_t>{2, 7, 16, 16});
  CHECK(acl.allocation_sizes()[0] == 3 * 7 * 16 * 16 * 2);
  CHECK(acl.launches()[0].storage_formats == std::vector<aclFormat>{ACL_FORMAT_FRACTAL_NZ,
                                                                    ACL_FORMAT_FRACTAL_NZ,
                                                                    ACL_FORMAT_FRACTAL_NZ});
  CHECK(acl.compiled_attrs() ==
        std::map<std::string, std::string>{
            {"b", "b:1"}, {"f", "f:0.500000"}, {"i", "i:3"}, {"l", "l:1,2"}, {"s", "s:NCHW"}});
  CHECK_FALSE(as::stored_as({{7}, aoe::DataType::float16, aoe::Format::ND}, aoe::Format::FRACTAL_NZ)
                  .has_value());
  auto int8 = as::fractal_nz_shape({{40, 70}, aoe::DataType::int8, aoe::Format::ND});
  REQUIRE(int8.has_value());
  CHECK(*int8 == std::vector<std::int64_t>{3, 3, 16, 32});
}

TEST_CASE("ascend runner: a compile failure is a compile measurement") {
  aoe::test::TempDir dir("ascend_compile");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir));
  REQUIRE(r.has_value());
  acl.fail(Call::compile, 100024, 0, 1);  // ACL_ERROR_OP_NOT_FOUND
  Measurement m = r->run(matmul());
  CHECK(m.status == Status::compile);
  CHECK(m.message.rfind("aclopCompile(MatMul) failed: ACL_ERROR_OP_NOT_FOUND (100024)", 0) == 0);
  CHECK(m.message.find("EZ9999") != std::string::npos);
  CHECK(acl.calls(Call::execute) == 0);
  CHECK(acl.live_per_call().empty());
  // A descriptor, attribute or compile option that AscendCL rejects: compile, too.
  for (const Call step : {Call::create_tensor_desc, Call::set_attr, Call::set_compileopt}) {
    acl.fail(step, 100000, 0, 1);
    m = r->run(matmul());
    CAPTURE(static_cast<int>(step));
    CHECK(m.status == Status::compile);
    CHECK(acl.live_per_call().empty());
  }
  CHECK(r->run(matmul()).ok());  // the device is fine afterwards
}

TEST_CASE("ascend runner: launch and execution failures are runtime measurements") {
  aoe::test::TempDir dir("ascend_launch");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir, 1, 3));
  REQUIRE(r.has_value());
  acl.fail(Call::execute, 507015, 2, 1);  // ACL_ERROR_RT_AICORE_EXCEPTION on the 2nd timed run
  Measurement m = r->run(matmul());
  CHECK(m.status == Status::runtime);
  CHECK(m.message.rfind("aclopExecuteV2(MatMul) failed: ACL_ERROR_RT_AICORE_EXCEPTION", 0) == 0);
  CHECK(m.samples.size() == 1);  // the first timed run was measured
  CHECK(acl.live_per_call().empty());
  acl.fail(Call::create_data_buffer, 200000, 0, 1);  // returns null
  m = r->run(matmul());
  CHECK(m.status == Status::runtime);
  CHECK(m.message.find("aclCreateDataBuffer returned null") != std::string::npos);
  acl.fail(Call::synchronize_event, 507000, 0, 1);
  m = r->run(matmul());
  CHECK(m.status == Status::runtime);
  CHECK(acl.live_per_call().empty());
  CHECK(r->run(matmul()).ok());
}

TEST_CASE("ascend runner: any failing ACL call of a measurement releases what it holds") {
  aoe::test::TempDir dir("ascend_every_path");
  const std::string binary = dir.write("k.o", "x");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir, 1, 2));
  REQUIRE(r.has_value());
  auto kernel = r->load_kernel(binary, "k");
  REQUIRE(kernel.has_value());
  as::OpCall op = matmul();
  auto nz = as::stored_as(op.inputs[0].desc, aoe::Format::FRACTAL_NZ);
  REQUIRE(nz.has_value());
  op.inputs[0] = *nz;  // so that aclSetTensorFormat and aclSetTensorShape are called
  op.precision_mode = "force_fp16";
  const as::KernelCall launch{.kernel = *kernel,
                              .block_dim = 2,
                              .inputs = {64},
                              .outputs = {64},
                              .workspace_bytes = 32,
                              .tiling = std::vector<std::byte>(8)};
  const std::vector<Call> calls{Call::set_current_context,
                                Call::create_tensor_desc,
                                Call::set_tensor_format,
                                Call::set_tensor_shape,
                                Call::create_attr,
                                Call::set_attr,
                                Call::set_compileopt,
                                Call::compile,
                                Call::malloc,
                                Call::memset,
                                Call::create_data_buffer,
                                Call::execute,
                                Call::synchronize_stream,
                                Call::record_event,
                                Call::synchronize_event,
                                Call::event_elapsed_time,
                                Call::malloc_host,
                                Call::memcpy,
                                Call::launch_kernel};
  int failures = 0;
  for (const Call call : calls) {
    // Fail the 1st, 2nd, ... call of this entry until a measurement no longer reaches it.
    for (int skip = 0; skip < 8; ++skip) {
      for (const bool kernel_mode : {false, true}) {
        const int before = acl.calls(call);
        acl.fail(call, 500003, skip, 1);
        const Measurement m = kernel_mode ? r->run(launch) : r->run(op);
        acl.heal(call);
        if (acl.calls(call) - before <= skip) {
          CHECK(m.ok());  // the entry was not called that often: nothing failed
          continue;
        }
        CAPTURE(static_cast<int>(call));
        CAPTURE(skip);
        CAPTURE(kernel_mode);
        CHECK_FALSE(m.ok());
        const bool returns_null = call == Call::create_tensor_desc || call == Call::create_attr ||
                                  call == Call::create_data_buffer;
        CHECK(
            (returns_null || m.message.find("ACL_ERROR_RT_FAILURE (500003)") != std::string::npos));
        CHECK(acl.live_per_call().empty());
        ++failures;
      }
    }
  }
  CHECK(failures > 40);
  CHECK(r->run(op).ok());
  CHECK(r->run(launch).ok());
}

TEST_CASE("ascend runner: out of device memory is a runtime measurement that says so") {
  aoe::test::TempDir dir("ascend_oom");
  aoe::test::AclDouble acl;
  acl.device_memory_limit = 1 << 20;
  auto r = AscendRunner::open(acl.api(), options(dir));
  REQUIRE(r.has_value());
  const Measurement m = r->run(matmul(1024, 1024, 1024));  // 2 MiB per tensor
  CHECK(m.status == Status::runtime);
  CHECK(m.message.rfind("out of device memory: operator MatMul input 0: aclrtMalloc(2097152 bytes) "
                        "failed: ACL_ERROR_RT_MEMORY_ALLOCATION (207001)",
                        0) == 0);
  CHECK(acl.calls(Call::compile) == 1);
  CHECK(acl.calls(Call::execute) == 0);
  CHECK(acl.live_per_call().empty());
  CHECK(r->run(matmul()).ok());
}

TEST_CASE("ascend runner: a run over sync_timeout_ms is a timeout, and the device recovers") {
  aoe::test::TempDir dir("ascend_timeout");
  aoe::test::AclDouble acl;
  double duration = 500;
  acl.duration_ms = [&duration](const aoe::test::AclDouble::Launch&) { return duration; };
  AscendOptions o = options(dir, 0, 3);
  o.sync_timeout_ms = 100;
  o.recover_timeout_ms = 1000;
  auto r = AscendRunner::open(acl.api(), o);
  REQUIRE(r.has_value());
  Measurement m = r->run(matmul());
  CHECK(m.status == Status::timeout);
  CHECK(m.message.find("ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047)") != std::string::npos);
  CHECK(m.message.find("sync_timeout_ms = 100") != std::string::npos);
  CHECK(acl.calls(Call::execute) == 1);  // the remaining repetitions are skipped
  duration = 1;
  m = r->run(matmul());
  CHECK(m.ok());

  // A candidate still running after recover_timeout_ms leaves the device unusable.
  duration = 5000;
  m = r->run(matmul());
  CHECK(m.status == Status::timeout);
  duration = 1;
  m = r->run(matmul());
  CHECK(m.status == Status::runtime);
  CHECK(m.message.find("Ascend device 0 is unusable") != std::string::npos);
  CHECK(acl.live_per_call().empty());
}

TEST_CASE("ascend runner: an Ascend C kernel gets its arguments and tiling data on the device") {
  aoe::test::TempDir dir("ascend_kernel");
  const std::string binary = dir.write("add_custom.o", "not a real kernel");
  aoe::test::AclDouble acl;
  acl.duration_ms = [](const aoe::test::AclDouble::Launch& l) {
    return l.kernel ? 8.0 / l.block_dim : 1.0;  // more cores, faster
  };
  {
    auto r = AscendRunner::open(acl.api(), options(dir, 1, 4));
    REQUIRE(r.has_value());
    auto kernel = r->load_kernel(binary, "add_custom");
    REQUIRE_MESSAGE(kernel.has_value(), (kernel ? "" : kernel.error().what()));
    CHECK((*kernel)->name() == "add_custom");
    as::TilingData tiling;
    REQUIRE(tiling.append("total_length", as::TilingType::uint32, 4096).has_value());
    REQUIRE(tiling.append("tile_num", as::TilingType::uint32, 8).has_value());
    as::KernelCall call{.kernel = *kernel,
                        .block_dim = 4,
                        .inputs = {8192, 8192},
                        .outputs = {8192},
                        .tiling = tiling.bytes()};
    const Measurement m = r->run(call);
    REQUIRE_MESSAGE(m.ok(), m.message);
    CHECK(m.value == doctest::Approx(0.002));
    CHECK(acl.calls(Call::launch_kernel) == 5);
    const auto launch = acl.launches().back();
    CHECK(launch.kernel);
    CHECK(launch.name == "add_custom");
    CHECK(launch.block_dim == 4);
    // x, y, z, workspace (null: 0 bytes), tiling
    REQUIRE(launch.arguments.size() == 5);
    CHECK(launch.arguments[0].size() == 8192);
    CHECK(launch.arguments[2].size() == 8192);
    CHECK(launch.null_arguments == std::vector<bool>{false, false, false, true, false});
    CHECK(launch.arguments[4] == tiling.bytes());
    CHECK(acl.live_per_call().empty());

    call.workspace_argument = false;
    call.block_dim = 8;
    CHECK(r->run(call).value == doctest::Approx(0.001));
    CHECK(acl.launches().back().arguments.size() == 4);
    call.block_dim = 0;
    const Measurement zero = r->run(call);
    CHECK(zero.status == Status::compile);
    call.block_dim = 2;
    acl.fail(Call::launch_kernel, 507035, 0, 1);  // ACL_ERROR_RT_VECTOR_CORE_EXCEPTION
    const Measurement failed = r->run(call);
    CHECK(failed.status == Status::runtime);
    CHECK(failed.message.rfind("aclrtLaunchKernel(add_custom, block_dim 2) (warm-up) failed: "
                               "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION",
                               0) == 0);
    CHECK(acl.live_per_call().empty());
    CHECK(acl.live().find("binaries=1") != std::string::npos);
  }
  CHECK(acl.live().empty());  // the kernel and the runner are gone: binary unloaded
  CHECK(acl.calls(Call::binary_unload) == 1);
}

TEST_CASE("ascend runner: kernel loading errors name the binary and the kernel") {
  aoe::test::TempDir dir("ascend_kernel_load");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir));
  REQUIRE(r.has_value());
  auto missing = r->load_kernel(dir.file("none.o"), "k");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == aoe::make_error_code(aoe::Errc::not_found));
  CHECK(missing.error().message.find("none.o: no such file") != std::string::npos);
  const std::string binary = dir.write("k.o", "x");
  acl.fail(Call::binary_get_function, 100029, 0, 1);  // ACL_ERROR_KERNEL_NOT_FOUND
  auto absent = r->load_kernel(binary, "matmul_custom");
  REQUIRE_FALSE(absent.has_value());
  CHECK(absent.error().message.find("kernel 'matmul_custom' in") != std::string::npos);
  CHECK(absent.error().message.find("ACL_ERROR_KERNEL_NOT_FOUND") != std::string::npos);
  CHECK(acl.live().find("binaries") == std::string::npos);  // unloaded on the error path
}

TEST_CASE("ascend runner: a bound runner measures configurations through its program") {
  aoe::test::TempDir dir("ascend_bound");
  aoe::test::AclDouble acl;
  // The op's time is the block dim it was given through an attribute, in ms.
  acl.duration_ms = [](const aoe::test::AclDouble::Launch&) { return 1.0; };
  auto r = AscendRunner::open(acl.api(), options(dir, 0, 1));
  REQUIRE(r.has_value());
  aoe::Space space(
      {aoe::values("impl_mode", {"high_performance", "high_precision", "bogus"})},
      {aoe::predicate(
          {"impl_mode"}, [](std::span<const double> x) { return x[0] < 1.5; }, "no bogus mode")});
  const auto bound =
      r->bind(space,
              [&space](const aoe::Configuration& c) -> aoe::Result<AscendRunner::Call> {
                as::OpCall call = matmul();
                call.impl_mode = space.value(c, 0).as_text();
                return AscendRunner::Call{call};
              },
              {0});
  CHECK(bound.bound());
  CHECK(bound.space().dimensions() == 1);
  CHECK(bound.default_configuration() == aoe::Configuration{0});
  const auto ms = bound.measure(bound.space(), std::vector<aoe::Configuration>{{0}, {1}, {2}, {7}});
  REQUIRE(ms.size() == 4);
  CHECK(ms[0].ok());
  CHECK(ms[1].ok());
  CHECK(acl.launches().back().impl_mode == "high_precision");
  CHECK(ms[2].status == Status::constraints);
  CHECK(ms[2].message == "impl_mode=bogus: violates no bogus mode");
  CHECK(ms[3].status == Status::constraints);
  CHECK(bound.best() == doctest::Approx(0.001));

  const auto failing =
      r->bind(space,
              [](const aoe::Configuration&) -> aoe::Result<AscendRunner::Call> {
                return aoe::make_error(aoe::Errc::invalid_argument, "tile too large");
              },
              {0});
  const Measurement m = failing.evaluate({0});
  CHECK(m.status == Status::compile);
  CHECK(m.message == "impl_mode=high_performance: tile too large");
}

TEST_CASE("ascend runner: the adaptive timeout stops a candidate far slower than the best") {
  aoe::test::TempDir dir("ascend_adaptive");
  aoe::test::AclDouble acl;
  acl.duration_ms = [](const aoe::test::AclDouble::Launch& l) { return l.block_dim == 1 ? 1 : 50; };
  AscendOptions o = options(dir, 0, 3);
  o.timeout_factor = 10;
  o.min_timeout = 0.001;
  auto r = AscendRunner::open(acl.api(), o);
  REQUIRE(r.has_value());
  const std::string binary = dir.write("k.o", "x");
  auto kernel = r->load_kernel(binary, "k");
  REQUIRE(kernel.has_value());
  aoe::Space space({aoe::values("block_dim", {1, 2})});
  const auto bound =
      r->bind(space,
              [&](const aoe::Configuration& c) -> aoe::Result<AscendRunner::Call> {
                return AscendRunner::Call{as::KernelCall{
                    .kernel = *kernel,
                    .block_dim = static_cast<std::uint32_t>(space.value(c, 0).as_integer())}};
              },
              {0});
  CHECK(bound.evaluate({0}).ok());
  const Measurement slow = bound.evaluate({1});
  CHECK(slow.status == Status::timeout);
  CHECK(slow.message.find("over the timeout of 0.01") != std::string::npos);
  CHECK(slow.samples.empty());
}

TEST_CASE("ascend runner: parallel measurement serialises the device") {
  aoe::test::TempDir dir("ascend_parallel");
  aoe::test::AclDouble acl;
  auto r = AscendRunner::open(acl.api(), options(dir, 1, 2));
  REQUIRE(r.has_value());
  aoe::Space space({aoe::values("impl_mode", {"high_performance", "high_precision"})});
  const auto bound =
      r->bind(space,
              [&space](const aoe::Configuration& c) -> aoe::Result<AscendRunner::Call> {
                as::OpCall call = matmul();
                call.impl_mode = space.value(c, 0).as_text();
                return AscendRunner::Call{call};
              },
              {0});
  aoe::ParallelMeasure<AscendRunner> parallel(bound, 4);
  std::vector<aoe::Configuration> batch;
  batch.reserve(16);
  for (int i = 0; i < 16; ++i) batch.push_back({static_cast<std::uint32_t>(i % 2)});
  const auto ms = parallel.measure(space, batch);
  for (const auto& m : ms) CHECK(m.ok());
  CHECK_FALSE(acl.overlapped());
  CHECK(acl.calls(Call::compile) == 16);
  CHECK(acl.live_per_call().empty());
}

}  // namespace ascend_runner_test

#elif defined(AOE_ASCEND_TESTS_REQUIRE_ACL)
#error "tests/ascend needs AscendCL's declarations: CANN, or tests/ascend/fake_cann/include"
#else
#include "support/skip.hpp"

#include <doctest/doctest.h>
TEST_CASE("ascend runner: needs AscendCL declarations on the include path") {
  aoe::test::skip("the Ascend tests are built by CMake (tests/ascend/fake_cann); Meson skips them");
}
#endif

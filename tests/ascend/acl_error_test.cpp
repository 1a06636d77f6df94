// The acl error category, and the tiling-data layout (neither needs a device or the double).
#include <aoe/measure/ascend/acl_error.hpp>
#include <aoe/measure/ascend/tiling_data.hpp>

#include <doctest/doctest.h>

#include <ostream>  // doctest prints a std::error_code with it

#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>

namespace ascend_acl_error_test {  // apart from this area's other files in a unity build

namespace as = aoe::ascend;

TEST_CASE("acl_category: ACL names, values and meanings") {
  const std::error_code oom = as::make_acl_error_code(207001);
  CHECK(std::string(oom.category().name()) == "acl");
  CHECK(&oom.category() == &as::acl_category());
  CHECK(oom.message() == "ACL_ERROR_RT_MEMORY_ALLOCATION (207001): out of device memory");
  CHECK(as::acl_error_name(0) == "ACL_SUCCESS");
  CHECK(as::acl_error_name(100024) == "ACL_ERROR_OP_NOT_FOUND");
  CHECK(as::acl_error_name(507047) == "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT");
  CHECK(as::acl_error_name(507015) == "ACL_ERROR_RT_AICORE_EXCEPTION");
  CHECK(as::acl_error_name(200000) == "ACL_ERROR_BAD_ALLOC");
  CHECK(as::acl_error_name(123456).empty());
  CHECK(as::make_acl_error_code(123456).message() == "ACL error 123456");
  // Codes of different categories never compare equal, even with the same value.
  CHECK(as::make_acl_error_code(1) != std::error_code(1, std::generic_category()));
}

TEST_CASE("acl errors: out of memory and timeouts are recognised") {
  CHECK(as::is_out_of_memory(200000));
  CHECK(as::is_out_of_memory(207001));
  CHECK(as::is_out_of_memory(207018));
  CHECK_FALSE(as::is_out_of_memory(507015));
  CHECK(as::is_timeout(507046));
  CHECK(as::is_timeout(507047));
  CHECK(as::is_timeout(507014));
  CHECK(as::is_timeout(107020));
  CHECK_FALSE(as::is_timeout(507015));
  CHECK_FALSE(as::is_timeout(0));
}

TEST_CASE("TilingData: natural alignment, padding and range checks") {
  as::TilingData t;
  REQUIRE(t.append("a", as::TilingType::uint8, 7).has_value());
  REQUIRE(t.append("b", as::TilingType::int32, -2).has_value());
  REQUIRE(t.append("c", as::TilingType::uint16, 65535).has_value());
  REQUIRE(t.append("d", as::TilingType::int64, std::int64_t{1} << 40).has_value());
  REQUIRE(t.append("e", as::TilingType::float32, 0.5).has_value());
  // Like struct { uint8_t a; int32_t b; uint16_t c; int64_t d; float e; }: offsets 0, 4, 8, 16,
  // 24, size 32.
  const auto bytes = t.bytes();
  REQUIRE(bytes.size() == 32);
  std::int32_t b = 0;
  std::uint16_t c = 0;
  std::int64_t d = 0;
  float e = 0;
  std::memcpy(&b, bytes.data() + 4, 4);
  std::memcpy(&c, bytes.data() + 8, 2);
  std::memcpy(&d, bytes.data() + 16, 8);
  std::memcpy(&e, bytes.data() + 24, 4);
  CHECK(static_cast<int>(bytes[0]) == 7);
  CHECK(b == -2);
  CHECK(c == 65535);
  CHECK(d == (std::int64_t{1} << 40));
  CHECK(e == 0.5F);

  const auto over = t.append("tile", as::TilingType::uint16, 70000);
  REQUIRE_FALSE(over.has_value());
  CHECK(over.error().message == "tiling field 'tile' (uint16): 70000 is out of the type's range");
  CHECK_FALSE(t.append("n", as::TilingType::uint32, -1).has_value());
  CHECK_FALSE(t.append("f", as::TilingType::int32, 1.5).has_value());
  CHECK_FALSE(t.append("s", as::TilingType::int32, "text").has_value());
  CHECK(t.bytes().size() == 32);  // failed appends leave the struct as it was

  CHECK(as::tiling_type_from_string("uint32_t") == as::TilingType::uint32);
  CHECK(as::tiling_type_from_string("float") == as::TilingType::float32);
  CHECK_FALSE(as::tiling_type_from_string("int33"));
}

}  // namespace ascend_acl_error_test

// JSON text for every file `aoe` writes (result files, tuned models, banks): never a non-finite
// number. Boost.JSON writes an infinity as `Infinity` and NaN as `null`, which no JSON reader
// (this one included) takes back; such a value is refused with an error naming the file and
// the JSON pointer (docs/reliability.md#input-limits).
#ifndef AOE_IO_WRITE_JSON_HPP
#define AOE_IO_WRITE_JSON_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/parse_json.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace aoe::detail {

/// `value` (a boost::json value, object or array) as JSON text, or an error
/// (Errc::invalid_argument) when a number in it is not finite; `file` names the destination in
/// the message.
template <class Json>
[[nodiscard]] Result<std::string> serialize_json(const Json& value, std::string_view file) {
  std::string pointer;
  if (!all_finite(value, pointer)) {
    return make_error(Errc::invalid_argument,
                      std::string(file) + ": " + (pointer.empty() ? std::string("/") : pointer) +
                          ": not written: the number is not finite (JSON has no infinity or NaN)");
  }
  return boost::json::serialize(value);
}

}  // namespace aoe::detail

#endif  // AOE_IO_WRITE_JSON_HPP

// Errors of the environment (files, JSON, devices): codes of the `aoe` category, carried with a
// message in `aoe::Result<T>`; `aoe::Error` for the throwing overloads.
#ifndef AOE_CORE_ERROR_HPP
#define AOE_CORE_ERROR_HPP

#include <boost/system/result.hpp>

#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

namespace aoe {

/// Error conditions of the library. Values are stable: tools map them to exit codes.
enum class Errc {
  invalid_argument = 1,  ///< a value given by the user is out of its domain
  not_found,             ///< a file, key or parameter does not exist
  io_error,              ///< reading or writing a file failed
  parse_error,           ///< a file is not well-formed (JSON syntax, truncated)
  schema_error,          ///< a file is well-formed but a field is missing or of the wrong type
  unsupported_version,   ///< a file's schema version is not one this build reads
  unsupported,           ///< a feature is not available in this build or on this device
  busy,                  ///< a resource is held by someone else (device, lock)
  device_error,          ///< the device runtime failed
  interrupted,           ///< a job was stopped by a signal
};

}  // namespace aoe

template <>
struct std::is_error_code_enum<aoe::Errc> : std::true_type {};

namespace aoe {

namespace detail {

class ErrorCategory final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "aoe"; }
  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::invalid_argument: return "invalid argument";
      case Errc::not_found: return "not found";
      case Errc::io_error: return "input/output error";
      case Errc::parse_error: return "parse error";
      case Errc::schema_error: return "schema error";
      case Errc::unsupported_version: return "unsupported version";
      case Errc::unsupported: return "unsupported";
      case Errc::busy: return "resource busy";
      case Errc::device_error: return "device error";
      case Errc::interrupted: return "interrupted";
    }
    return "unknown aoe error";
  }
};

}  // namespace detail

/// The `aoe` error category.
[[nodiscard]] inline const std::error_category& error_category() noexcept {
  static const detail::ErrorCategory category;
  return category;
}

[[nodiscard]] inline std::error_code make_error_code(Errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

/// What went wrong, and where: a code to branch on and a message for a person, naming the file,
/// the field (a JSON pointer) or the flag and what was expected.
struct ErrorInfo {
  std::error_code code;
  std::string message;

  ErrorInfo() = default;
  ErrorInfo(std::error_code c, std::string m) : code(c), message(std::move(m)) {}
  ErrorInfo(Errc e, std::string m) : code(make_error_code(e)), message(std::move(m)) {}

  /// "message (aoe: parse error)".
  [[nodiscard]] std::string what() const {
    return message.empty() ? code.message() : message + " (" + code.category().name() + ": " +
                                                  code.message() + ")";
  }
  friend bool operator==(const ErrorInfo& a, const ErrorInfo& b) { return a.code == b.code; }
};

/// The one exception type of the library, thrown only by the throwing overloads.
class Error : public std::system_error {
 public:
  explicit Error(const ErrorInfo& info) : std::system_error(info.code, info.message) {}
  Error(Errc e, const std::string& message) : std::system_error(make_error_code(e), message) {}
};

/// A value or an `ErrorInfo`; `value()` throws `aoe::Error` when it holds an error.
template <class T>
using Result = boost::system::result<T, ErrorInfo>;

/// Found by `boost::system::result<T, ErrorInfo>::value()` through argument-dependent lookup.
[[noreturn]] inline void throw_exception_from_error(const ErrorInfo& info,
                                                    const boost::source_location& /*where*/) {
  throw Error(info);
}

/// Shorthand for returning an error from a function that returns `Result<T>`.
[[nodiscard]] inline ErrorInfo make_error(Errc e, std::string message) {
  return ErrorInfo(e, std::move(message));
}

}  // namespace aoe

#endif  // AOE_CORE_ERROR_HPP

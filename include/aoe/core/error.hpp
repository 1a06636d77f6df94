// Errors of the environment (files, JSON, devices): codes of the `aoe` category, carried with a
// message in `aoe::Result<T>`; `aoe::Error` for the throwing overloads.
#ifndef AOE_CORE_ERROR_HPP
#define AOE_CORE_ERROR_HPP

#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

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
    return message.empty() ? code.message()
                           : message + " (" + code.category().name() + ": " + code.message() + ")";
  }
  friend bool operator==(const ErrorInfo& a, const ErrorInfo& b) { return a.code == b.code; }
};

/// The one exception type of the library, thrown only by the throwing overloads.
class Error : public std::system_error {
 public:
  explicit Error(const ErrorInfo& info) : std::system_error(info.code, info.message) {}
  Error(Errc e, const std::string& message) : std::system_error(make_error_code(e), message) {}
};

/// Tags that say which alternative of a `Result` the arguments construct.
struct in_place_value_t {
  explicit in_place_value_t() = default;
};
struct in_place_error_t {
  explicit in_place_error_t() = default;
};
inline constexpr in_place_value_t in_place_value{};
inline constexpr in_place_error_t in_place_error{};

template <class T>
class Result;

namespace detail {

template <class A>
inline constexpr bool is_result_tag_v = std::is_same_v<std::remove_cvref_t<A>, in_place_value_t> ||
                                        std::is_same_v<std::remove_cvref_t<A>, in_place_error_t>;

template <class A>
struct is_result : std::false_type {};
template <class U>
struct is_result<Result<U>> : std::true_type {};

/// A single argument that is neither a tag nor a `Result` (those have constructors of their own).
template <class A>
concept plain_result_argument = !is_result_tag_v<A> && !is_result<std::remove_cvref_t<A>>::value;

}  // namespace detail

/// A value or an `ErrorInfo`; `value()` throws `aoe::Error` when it holds an error.
///
/// The interface (and the choice between value and error for each constructor) is that of
/// `boost::system::result<T, ErrorInfo>`, which this type replaced to keep Boost.System's
/// headers out of every translation unit: a value or an error converts implicitly, several
/// arguments construct whichever of the two they can, `error()` returns a copy (a default
/// `ErrorInfo` when there is a value), and `value()` of an rvalue returns the value moved out.
template <class T>
class Result {
 public:
  using value_type = T;
  using error_type = ErrorInfo;

  static constexpr in_place_value_t in_place_value{};
  static constexpr in_place_error_t in_place_error{};

  /// A value-initialised value.
  constexpr Result() noexcept(
      std::is_nothrow_default_constructible_v<T>) requires std::is_default_constructible_v<T>
      : v_(std::in_place_index<0>) {}

  template <class A = T>
    requires detail::plain_result_argument<A> && std::is_convertible_v<A, T> &&
        (!std::is_constructible_v<ErrorInfo, A>)constexpr Result(
            A&& a)  // NOLINT(google-explicit-constructor): a value converts
        : v_(std::in_place_index<0>, std::forward<A>(a)) {}

    template <class A = ErrorInfo>
      requires detail::plain_result_argument<A> && std::is_convertible_v<A, ErrorInfo> &&
          (!std::is_constructible_v<T, A>)constexpr Result(
              A&& a)  // NOLINT(google-explicit-constructor): an error converts
          : v_(std::in_place_index<1>, std::forward<A>(a)) {}

      template <class... A>
        requires(sizeof...(A) >= 1)
      &&(sizeof...(A) > 1 || (detail::plain_result_argument<A> && ...)) &&
          std::is_constructible_v<T, A...> &&
          (!std::is_constructible_v<ErrorInfo, A...>)&&(sizeof...(A) > 1 ||
                                                        !(std::is_convertible_v<A, T> &&
                                                          ...)) explicit constexpr Result(A&&... a)
          : v_(std::in_place_index<0>, std::forward<A>(a)...) {}

      template <class... A>
        requires(sizeof...(A) >= 1)
      &&(sizeof...(A) > 1 || (detail::plain_result_argument<A> && ...)) &&
          (!std::is_constructible_v<T, A...>)&&std::is_constructible_v<ErrorInfo, A...> &&
          (sizeof...(A) > 1 ||
           !(std::is_convertible_v<A, ErrorInfo> && ...)) explicit constexpr Result(A&&... a)
          : v_(std::in_place_index<1>, std::forward<A>(a)...) {}

      template <class... A>
        requires std::is_constructible_v<T, A...>
      constexpr Result(in_place_value_t /*tag*/, A&&... a)
          : v_(std::in_place_index<0>, std::forward<A>(a)...) {}

      template <class... A>
        requires std::is_constructible_v<ErrorInfo, A...>
      constexpr Result(in_place_error_t /*tag*/, A&&... a)
          : v_(std::in_place_index<1>, std::forward<A>(a)...) {}

      /// From a result of another value type whose value converts.
      template <class U>
        requires(!std::is_same_v<U, T>)
      &&std::is_convertible_v<U, T> constexpr Result(
          const Result<U>& other)  // NOLINT(google-explicit-constructor)
          : v_(std::in_place_index<1>) {
        if (other.has_value())
          v_.template emplace<0>(*other);
        else
          v_.template emplace<1>(other.error());
      }
      template <class U>
        requires(!std::is_same_v<U, T>)
      &&std::is_convertible_v<U, T> constexpr Result(
          Result<U>&& other)  // NOLINT(google-explicit-constructor)
          : v_(std::in_place_index<1>) {
        if (other.has_value())
          v_.template emplace<0>(std::move(*other));
        else
          v_.template emplace<1>(other.error());
      }

      [[nodiscard]] constexpr bool has_value() const noexcept { return v_.index() == 0; }
      [[nodiscard]] constexpr bool has_error() const noexcept { return v_.index() == 1; }
      constexpr explicit operator bool() const noexcept { return has_value(); }

      /// The value; throws `aoe::Error` with the error's code and message when there is none.
      constexpr T& value() & {
        if (has_error()) throw Error(*std::get_if<1>(&v_));
        return *std::get_if<0>(&v_);
      }
      constexpr const T& value() const& {
        if (has_error()) throw Error(*std::get_if<1>(&v_));
        return *std::get_if<0>(&v_);
      }
      constexpr T value() && { return std::move(value()); }
      T value() const&& = delete;

      /// The value, unchecked: the caller has tested `has_value()`.
      constexpr T* operator->() noexcept { return std::get_if<0>(&v_); }
      constexpr const T* operator->() const noexcept { return std::get_if<0>(&v_); }
      constexpr T& operator*() & noexcept { return *std::get_if<0>(&v_); }
      constexpr const T& operator*() const& noexcept { return *std::get_if<0>(&v_); }
      constexpr T operator*() && noexcept(std::is_nothrow_move_constructible_v<T>) {
        return std::move(**this);
      }
      T operator*() const&& = delete;

      /// A copy of the error; a default `ErrorInfo` when there is a value.
      [[nodiscard]] ErrorInfo error() const {
        return has_error() ? *std::get_if<1>(&v_) : ErrorInfo();
      }

      /// Replaces the content with a value constructed from `a`.
      template <class... A>
      constexpr T& emplace(A&&... a) {
        return v_.template emplace<0>(std::forward<A>(a)...);
      }

      constexpr void swap(Result& other) noexcept(
          std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_swappable_v<T>) {
        v_.swap(other.v_);
      }
      friend constexpr void swap(Result& a, Result& b) noexcept(noexcept(a.swap(b))) { a.swap(b); }

      /// Equal when both hold equal values, or both hold errors of the same code.
      friend constexpr bool operator==(const Result& a, const Result& b) { return a.v_ == b.v_; }

     private:
      std::variant<T, ErrorInfo> v_;
};

/// Success or an `ErrorInfo`. A flag and an `ErrorInfo` rather than a variant: this
/// specialisation is a plain class, so every translation unit compiles its members.
template <>
class Result<void> {
 public:
  using value_type = void;
  using error_type = ErrorInfo;

  static constexpr in_place_value_t in_place_value{};
  static constexpr in_place_error_t in_place_error{};

  /// Success.
  Result() noexcept = default;

  template <class A>
    requires detail::plain_result_argument<A> && std::is_constructible_v<ErrorInfo, A> &&
        (!std::is_convertible_v<A, ErrorInfo>)explicit Result(A&& a)
        : failed_(true), error_(std::forward<A>(a)) {}

    template <class A>
      requires detail::plain_result_argument<A> && std::is_convertible_v<A, ErrorInfo> Result(
          A&& a)  // NOLINT(google-explicit-constructor): an error converts
          : failed_(true), error_(std::forward<A>(a)) {}

      template <class... A>
        requires(sizeof...(A) >= 2)
      &&std::is_constructible_v<ErrorInfo, A...> Result(
          A&&... a)  // NOLINT(google-explicit-constructor)
          : failed_(true),
      error_(std::forward<A>(a)...) {}

      explicit Result(in_place_value_t /*tag*/) noexcept {}

      template <class... A>
        requires std::is_constructible_v<ErrorInfo, A...> Result(in_place_error_t /*tag*/, A&&... a)
            : failed_(true), error_(std::forward<A>(a)...) {}

        [[nodiscard]] bool has_value() const noexcept { return !failed_; }
        [[nodiscard]] bool has_error() const noexcept { return failed_; }
        explicit operator bool() const noexcept { return !failed_; }

        /// Nothing; throws `aoe::Error` with the error's code and message when there is an error.
        void value() const {
          if (failed_) throw Error(error_);
        }
        void operator*() const noexcept {}

        /// A copy of the error; a default `ErrorInfo` on success.
        [[nodiscard]] ErrorInfo error() const { return failed_ ? error_ : ErrorInfo(); }

        /// Makes this a success.
        void emplace() {
          failed_ = false;
          error_ = ErrorInfo();
        }

        void swap(Result& other) noexcept {
          std::swap(failed_, other.failed_);
          std::swap(error_.code, other.error_.code);
          error_.message.swap(other.error_.message);
        }
        friend void swap(Result& a, Result& b) noexcept { a.swap(b); }

        friend bool operator==(const Result& a, const Result& b) {
          return a.failed_ == b.failed_ && (!a.failed_ || a.error_ == b.error_);
        }

       private:
        bool failed_ = false;
        ErrorInfo error_;
};

/// Shorthand for returning an error from a function that returns `Result<T>`.
[[nodiscard]] inline ErrorInfo make_error(Errc e, std::string message) {
  return ErrorInfo(e, std::move(message));
}

}  // namespace aoe

#endif  // AOE_CORE_ERROR_HPP

#pragma once
/// @file Numbers read from command lines: the whole text must be one number, so that "12x", "" or
/// "1e3.5" are rejected rather than read in part. Callers name the option and the range.

#include <exception>
#include <optional>
#include <string>
#include <type_traits>

namespace pscr {

namespace detail {
/// `convert(text, &used)` (a std::sto* function) when it reads the whole of `text`, else none.
template <class Convert>
auto parse_whole(const std::string& text, Convert convert)
    -> std::optional<std::invoke_result_t<Convert, const std::string&, std::size_t*>> {
  std::size_t used = 0;
  try {
    const auto value = convert(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}
}  // namespace detail

/// `text` as an integer when the whole of it is one (decimal, optional sign), else none.
inline std::optional<long long> parse_integer(const std::string& text) {
  return detail::parse_whole(
      text, [](const std::string& t, std::size_t* used) { return std::stoll(t, used); });
}

/// `text` as a number when the whole of it is one (as std::stod reads it: also "inf" and "nan",
/// which callers that need a finite value check), else none.
inline std::optional<double> parse_real(const std::string& text) {
  return detail::parse_whole(
      text, [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
}

}  // namespace pscr

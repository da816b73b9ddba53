// String building for messages. Debian's abseil is built with its own string_view, so
// absl::StrCat does not take std::string_view; these helpers take anything printable.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace openpjrt {

namespace str_internal {

inline void Append(std::string* out, std::string_view s) { out->append(s); }
inline void Append(std::string* out, const char* s) { out->append(s); }
inline void Append(std::string* out, const std::string& s) { out->append(s); }
inline void Append(std::string* out, char c) { out->push_back(c); }
inline void Append(std::string* out, bool b) { out->append(b ? "true" : "false"); }
template <typename T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>)
void Append(std::string* out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}
// Any other string-like type (absl::string_view from absl::Status::message(), for one).
template <typename T>
  requires(requires(const T& t) {
    t.data();
    t.size();
  } && !std::is_same_v<T, std::string> && !std::is_same_v<T, std::string_view>)
void Append(std::string* out, const T& s) {
  out->append(s.data(), s.size());
}
inline void Append(std::string* out, double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

}  // namespace str_internal

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (str_internal::Append(out, args), ...);
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string s;
  StrAppend(&s, args...);
  return s;
}

}  // namespace openpjrt

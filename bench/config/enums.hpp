// The driver's closed sets of choices as enums, each with its configuration spelling.
//
// A name table per enum (EnumNames<E>::table) is the one place where a spelling is written;
// to_string, parse_enum and the "a | b | c" lists of error messages are derived from it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace collbench {

enum class SyncMethod { Barrier, DoubleBarrier, Window, RoundTime };
enum class ClockSyncKind { Hierarchical, Linear };
enum class ClockKind { MpiWtime, Monotonic, Tsc };
enum class Resync { Bound, Point, Launch };
enum class Binding { None, Core };

// The methods that time repetitions on the global clock (clock synchronization matters).
inline bool uses_global_clock(SyncMethod m) { return m == SyncMethod::Window || m == SyncMethod::RoundTime; }

template <class E>
struct EnumNames;

template <>
struct EnumNames<SyncMethod> {
  static constexpr std::array table{std::pair{SyncMethod::Barrier, std::string_view("barrier")},
                                    std::pair{SyncMethod::DoubleBarrier, std::string_view("double-barrier")},
                                    std::pair{SyncMethod::Window, std::string_view("window")},
                                    std::pair{SyncMethod::RoundTime, std::string_view("round-time")}};
};
template <>
struct EnumNames<ClockSyncKind> {
  static constexpr std::array table{std::pair{ClockSyncKind::Hierarchical, std::string_view("hierarchical")},
                                    std::pair{ClockSyncKind::Linear, std::string_view("linear")}};
};
template <>
struct EnumNames<ClockKind> {
  static constexpr std::array table{std::pair{ClockKind::MpiWtime, std::string_view("mpi-wtime")},
                                    std::pair{ClockKind::Monotonic, std::string_view("monotonic")},
                                    std::pair{ClockKind::Tsc, std::string_view("tsc")}};
};
template <>
struct EnumNames<Resync> {
  static constexpr std::array table{std::pair{Resync::Bound, std::string_view("bound")},
                                    std::pair{Resync::Point, std::string_view("point")},
                                    std::pair{Resync::Launch, std::string_view("launch")}};
};
template <>
struct EnumNames<Binding> {
  static constexpr std::array table{std::pair{Binding::None, std::string_view("none")},
                                    std::pair{Binding::Core, std::string_view("core")}};
};

template <class E>
std::string to_string(E value) {
  for (const auto& [v, name] : EnumNames<E>::table)
    if (v == value) return std::string(name);
  return "?";
}

template <class E>
std::optional<E> parse_enum(std::string_view text) {
  for (const auto& [v, name] : EnumNames<E>::table)
    if (name == text) return v;
  return std::nullopt;
}

// "barrier | double-barrier | window"
template <class E>
std::string enum_choices(std::string_view separator = " | ") {
  std::string out;
  for (const auto& [v, name] : EnumNames<E>::table) out += (out.empty() ? "" : std::string(separator)) + std::string(name);
  return out;
}

}  // namespace collbench

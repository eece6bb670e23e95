// The driver's closed sets of choices as enums, each with its configuration spelling.
//
// The enums and their spellings are generated from contract/contract.json ("enums";
// contract/contract.cmake -> collrepro/contract_enums.hpp): the contract is the one place where
// a spelling is written, so a value the driver can write is a value the loader accepts.
// to_string, parse_enum and the "a | b | c" lists of error messages are derived from it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collrepro/contract_enums.hpp"

namespace collbench {

using SyncMethod = collrepro::contract::SyncMethod;        // enums.sync
using ClockSyncKind = collrepro::contract::ClockSyncKind;  // enums.clock_sync
using ClockKind = collrepro::contract::ClockKind;          // enums.clock
using Resync = collrepro::contract::Resync;                // enums.resync
using Binding = collrepro::contract::Binding;              // enums.binding

// The methods that time repetitions on the global clock (clock synchronization matters).
inline bool uses_global_clock(SyncMethod m) { return m == SyncMethod::Window || m == SyncMethod::RoundTime; }

template <class E>
std::string to_string(E value) {
  return std::string(collrepro::contract::name(value));
}

template <class E>
std::optional<E> parse_enum(std::string_view text) {
  return collrepro::contract::parse<E>(text);
}

// "barrier | double-barrier | window"
template <class E>
std::string enum_choices(std::string_view separator = " | ") {
  std::string out;
  for (const auto name : collrepro::contract::Names<E>::values)
    out += (out.empty() ? "" : std::string(separator)) + std::string(name);
  return out;
}

}  // namespace collbench

# The C++ side of the results contract's value sets: at configure time, contract.json's "enums"
# become <build>/generated/contract/collrepro/contract_enums.hpp, one enum class per set (its
# enumerators the values in CamelCase, in contract order) with its names, in namespace
# collrepro::contract. The driver and the registry spell every enumerated value through it, so
# a value the writer can produce is a value of the contract by construction.
# Consumers link the INTERFACE target collrepro_contract (collplan does, PUBLIC).
set(_contract_json ${CMAKE_CURRENT_LIST_DIR}/contract.json)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_contract_json})
file(READ ${_contract_json} _contract_text)

set(_out "// Generated from contract/contract.json (\"enums\") by contract/contract.cmake. Do not edit.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace collrepro::contract {

// Names<E>::values: the contract's spellings of E, indexed by the enumerator's value.
template <class E>
struct Names;
")
string(JSON _count LENGTH "${_contract_text}" enums)
math(EXPR _last "${_count} - 1")
foreach(_i RANGE ${_last})
  string(JSON _set MEMBER "${_contract_text}" enums ${_i})
  if(_set STREQUAL "about")
    continue()
  endif()
  string(JSON _cpp GET "${_contract_text}" enums ${_set} cpp)
  string(JSON _n LENGTH "${_contract_text}" enums ${_set} values)
  math(EXPR _vlast "${_n} - 1")
  set(_enumerators "")
  set(_names "")
  foreach(_j RANGE ${_vlast})
    string(JSON _value GET "${_contract_text}" enums ${_set} values ${_j})
    string(REGEX MATCHALL "[^-]+" _parts "${_value}")
    set(_camel "")
    foreach(_part ${_parts})
      string(SUBSTRING "${_part}" 0 1 _head)
      string(SUBSTRING "${_part}" 1 -1 _tail)
      string(TOUPPER "${_head}" _head)
      string(APPEND _camel "${_head}${_tail}")
    endforeach()
    if(_j GREATER 0)
      string(APPEND _enumerators ", ")
      string(APPEND _names ", ")
    endif()
    string(APPEND _enumerators "${_camel}")
    string(APPEND _names "\"${_value}\"")
  endforeach()
  string(APPEND _out "
// enums.${_set}
enum class ${_cpp} { ${_enumerators} };
inline constexpr std::array<std::string_view, ${_n}> k${_cpp}Names{${_names}};
template <>
struct Names<${_cpp}> {
  static constexpr std::string_view set = \"${_set}\";
  static constexpr const auto& values = k${_cpp}Names;
};
")
endforeach()
string(APPEND _out "
// The contract's spelling of a value (\"?\" for a value outside the enum, e.g. a cast integer).
template <class E>
constexpr std::string_view name(E value) {
  const auto i = static_cast<std::size_t>(value);
  return i < Names<E>::values.size() ? Names<E>::values[i] : std::string_view(\"?\");
}

// The value spelled `text`; nullopt when the contract has no such value.
template <class E>
constexpr std::optional<E> parse(std::string_view text) {
  for (std::size_t i = 0; i < Names<E>::values.size(); ++i)
    if (Names<E>::values[i] == text) return static_cast<E>(i);
  return std::nullopt;
}

// Every value of E, in contract order.
template <class E>
constexpr std::array<E, Names<E>::values.size()> all() {
  std::array<E, Names<E>::values.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<E>(i);
  return out;
}

}  // namespace collrepro::contract
")
set(COLLREPRO_CONTRACT_INCLUDE ${PROJECT_BINARY_DIR}/generated/contract)
file(WRITE ${COLLREPRO_CONTRACT_INCLUDE}/collrepro/contract_enums.hpp.new "${_out}")
# Rewritten only when the content changes: an unchanged contract rebuilds nothing.
configure_file(${COLLREPRO_CONTRACT_INCLUDE}/collrepro/contract_enums.hpp.new
               ${COLLREPRO_CONTRACT_INCLUDE}/collrepro/contract_enums.hpp COPYONLY)

add_library(collrepro_contract INTERFACE)
target_include_directories(collrepro_contract INTERFACE ${COLLREPRO_CONTRACT_INCLUDE})

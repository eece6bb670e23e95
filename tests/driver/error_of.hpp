// The message of the ConfigError a callable throws: what the driver's tests compare.
#pragma once

#include <string>

#include "base/errors.hpp"

namespace collbench::testing {

// "" when f throws no ConfigError.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace collbench::testing

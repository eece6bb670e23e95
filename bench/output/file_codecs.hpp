// What the result files need of bytes: gzip decompression (a file stored compressed by
// `collrepro-py compact`) and SHA-256 (the integrity record). Pure; results.cpp uses them.
#pragma once

#include <cstdint>
#include <string>

namespace collbench {

// The gzip members of `in`, decompressed; false with `problem` set when the data is damaged or
// decompresses to more than `limit` bytes.
bool gunzip(const std::string& in, std::uintmax_t limit, std::string& out, std::string& problem);

// SHA-256 (FIPS 180-4) of a byte string, as 64 hex digits: what `sha256sum` prints.
std::string sha256(const std::string& data);

}  // namespace collbench

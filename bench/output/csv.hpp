// CSV quoting and a reader for resuming (the column lists come from the contract,
// contract.hpp). Fields are quoted only when they contain a comma, a quote or a line
// break (RFC 4180); times are written with 10 significant digits.
#pragma once

#include <string>
#include <vector>

namespace collbench {

std::string csv_field(const std::string& s);
std::string csv_number(double v);  // "%.10g"; "nan" for NaN
std::string csv_optional(double v);  // as csv_number, but empty for NaN (a value that does not apply)
std::string csv_line(const std::vector<std::string>& fields);  // with the trailing '\n'
// Splits one line (without its '\n'); throws std::invalid_argument on a malformed quote.
std::vector<std::string> csv_split(const std::string& line);

}  // namespace collbench

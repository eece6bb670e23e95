// The results contract as the C++ writer sees it: contract/contract.json, embedded at build
// time (bench/CMakeLists.txt), is the only place where the CSV columns, their order and the
// families' shape columns are written. The writer binds every value to its column by name
// (Row), so that nothing depends on pushing values in the right order.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench {

const nlohmann::ordered_json& contract();  // the parsed contract/contract.json, in file order
int contract_version();

const std::vector<std::string>& raw_columns();
const std::vector<std::string>& summary_columns();
const std::vector<std::string>& phases_columns();  // the phases table (timing.phases)
// The shape columns of family `name` ("inter-group"), in contract order; empty if unknown.
std::vector<std::string> contract_shape_columns(const std::string& family);

// One CSV row: values set by column name; columns left unset are empty.
class Row {
 public:
  explicit Row(const std::vector<std::string>& columns);
  // Throws std::logic_error for a column the table does not have (a contract mismatch).
  Row& set(const std::string& column, std::string value);
  std::string line() const;  // the CSV line, with its newline

 private:
  const std::vector<std::string>& columns_;
  std::vector<std::string> values_;
};

}  // namespace collbench

#include "output/contract.hpp"

#include <algorithm>
#include <stdexcept>

#include "contract_data.hpp"  // generated: kContractJson, the text of contract/contract.json
#include "output/csv.hpp"

namespace collbench {

namespace {

std::vector<std::string> strings(const nlohmann::ordered_json& list) { return list.get<std::vector<std::string>>(); }

void append_unique(std::vector<std::string>& out, const std::vector<std::string>& more) {
  for (const auto& c : more)
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
}

// Every family's shape columns, in family order, each column once.
std::vector<std::string> all_shape_columns() {
  std::vector<std::string> out;
  for (const auto& [name, family] : contract()["families"].items()) append_unique(out, strings(family["shape"]));
  return out;
}

std::vector<std::string> table(const std::string& name, bool with_utc) {
  const auto& t = contract()["tables"]["raw"];
  std::vector<std::string> out;
  for (const auto& c : strings(t["identity"]))
    if (with_utc || c != "utc") out.push_back(c);
  append_unique(out, all_shape_columns());
  append_unique(out, strings(t["after_shape"]));
  append_unique(out, strings(contract()["tables"][name]["measurement"]));
  return out;
}

}  // namespace

const nlohmann::ordered_json& contract() {
  // ordered_json keeps the file's key order: the families' shape columns are laid out in it.
  static const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(kContractJson);
  return parsed;
}

int contract_version() { return contract()["version"].get<int>(); }

const std::vector<std::string>& raw_columns() {
  static const std::vector<std::string> cols = table("raw", true);
  return cols;
}

const std::vector<std::string>& summary_columns() {
  static const std::vector<std::string> cols = table("summary", false);
  return cols;
}

const std::vector<std::string>& phases_columns() {
  static const std::vector<std::string> cols = strings(contract()["tables"]["phases"]["columns"]);
  return cols;
}

std::vector<std::string> contract_shape_columns(const std::string& family) {
  const auto& families = contract()["families"];
  if (!families.contains(family)) return {};
  return strings(families[family]["shape"]);
}

Row::Row(const std::vector<std::string>& columns) : columns_(columns), values_(columns.size()) {}

Row& Row::set(const std::string& column, std::string value) {
  const auto it = std::find(columns_.begin(), columns_.end(), column);
  if (it == columns_.end()) throw std::logic_error("CSV column '" + column + "' is not in the results contract");
  values_[static_cast<std::size_t>(it - columns_.begin())] = std::move(value);
  return *this;
}

std::string Row::line() const { return csv_line(values_); }

}  // namespace collbench

#include "output/rows.hpp"

#include <algorithm>

#include "output/contract.hpp"
#include "output/csv.hpp"

namespace collbench {

void set_candidate(Row& row, const Candidate& c) {
  const auto& info = c.algorithm->info();
  row.set("placement", c.placement).set("family", c.family->name()).set("collective", collrepro::to_string(c.collective));
  row.set("algorithm", info.name).set("topology", collrepro::to_string(info.topology)).set("msg_bytes", std::to_string(c.shape->msg_bytes()));
  for (const auto& [column, value] : c.shape->columns()) row.set(column, value);
  row.set("call", collrepro::to_string(c.call));
}

namespace {

// The identity and shape columns of a point, by name (the contract fixes their order).
Row identity_row(const std::vector<std::string>& columns, const Identity& id, const Candidate& c, int point) {
  Row row(columns);
  row.set("experiment", id.experiment).set("launch", std::to_string(id.launch)).set("point", std::to_string(point));
  row.set("mpi_impl", id.mpi.impl).set("mpi_version", id.mpi.version);
  row.set("nodes", std::to_string(id.nodes)).set("nprocs", std::to_string(id.nprocs)).set("ppn", std::to_string(id.ppn));
  set_candidate(row, c);
  row.set("sync", to_string(id.sync)).set("clock", to_string(id.clock));
  const Arrival& arrival = id.arrivals.at(c.sweep);
  row.set("arrival", to_string(arrival.pattern)).set("arrival_max_s", csv_number(arrival.max_delay_s));
  return row;
}

}  // namespace

std::vector<std::string> raw_lines(const Identity& id, const Candidate& c, int point, const std::string& utc,
                                   const Measurement& m) {
  Row row = identity_row(raw_columns(), id, c, point);
  row.set("utc", utc);
  std::vector<std::string> lines;
  const std::vector<double>& from_last = m.times_from_last.empty() ? m.times : m.times_from_last;
  for (std::size_t i = 0; i < m.times.size(); ++i) {
    row.set("rep", std::to_string(i)).set("time_s", csv_number(m.times[i])).set("valid", m.valid[i] ? "1" : "0");
    row.set("time_from_last_s", csv_number(from_last[i]));
    lines.push_back(row.line());
  }
  return lines;
}

std::vector<std::string> phases_lines(const Identity& id, const Candidate& c, int point, const Measurement& m) {
  std::vector<std::string> lines;
  const std::size_t count = m.phase_names.size();
  if (count == 0) return lines;
  Row row(phases_columns());
  row.set("experiment", id.experiment).set("launch", std::to_string(id.launch)).set("point", std::to_string(point));
  row.set("algorithm", c.algorithm->info().name).set("msg_bytes", std::to_string(c.shape->msg_bytes()));
  for (std::size_t i = 0; i * count < m.phase_ends.size(); ++i) {
    double previous = 0;
    row.set("rep", std::to_string(i));
    for (std::size_t j = 0; j < count; ++j) {
      const double end = m.phase_ends[i * count + j];
      row.set("phase_index", std::to_string(j)).set("phase", m.phase_names[j]);
      row.set("phase_s", csv_number(std::max(0.0, end - previous))).set("phase_end_s", csv_number(end));
      previous = std::max(previous, end);
      lines.push_back(row.line());
    }
  }
  return lines;
}

std::string summary_line(const Identity& id, const Candidate& c, int point, const Summary& s, const Measurement& m,
                         double init_s) {
  Row row = identity_row(summary_columns(), id, c, point);
  row.set("n", std::to_string(s.n)).set("n_invalid", std::to_string(s.n_invalid)).set("n_kept", std::to_string(s.n_kept));
  row.set("k", csv_number(s.k)).set("median", csv_number(s.median)).set("q1", csv_number(s.q1));
  row.set("q3", csv_number(s.q3)).set("min", csv_number(s.min)).set("max", csv_number(s.max));
  row.set("mean", csv_number(s.mean)).set("p50", csv_number(s.p50)).set("p90", csv_number(s.p90));
  row.set("p99", csv_number(s.p99));
  row.set("cost_alpha_terms", csv_number(c.cost.alpha_terms)).set("cost_beta_bytes", csv_number(c.cost.beta_bytes));
  row.set("bound_alpha_terms", csv_number(c.bound.alpha_terms)).set("bound_beta_bytes", csv_number(c.bound.beta_bytes));
  row.set("clock_residual_s", csv_optional(m.residual_s)).set("clock_residual_err_s", csv_optional(m.residual_err_s));
  row.set("clock_drift_residual", csv_optional(m.drift_residual));
  row.set("resynced", m.resynced < 0 ? "" : std::to_string(m.resynced));
  row.set("median_from_last", m.times_from_last.empty() ? csv_number(s.median)
                                                        : csv_number(median_over_kept(m.times, m.valid, s.k, m.times_from_last)));
  row.set("init_s", csv_optional(init_s));
  row.set("overlap_pct", csv_optional(m.overlap_pct)).set("overlap_pure_s", csv_optional(m.overlap_pure_s));
  row.set("overlap_compute_s", csv_optional(m.overlap_compute_s));
  return row.line();
}

}  // namespace collbench

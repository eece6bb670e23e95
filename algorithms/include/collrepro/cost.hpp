// What a plan may say about an algorithm without knowing the registry: whether it supports a
// shape (Support, with a reason a user can act on) and what it costs in the alpha-beta model
// (Cost). Pure: the plans (collplan) include this header, never registry.hpp, which adds the
// MPI-facing Algorithm, Runner and Registry on top of it.
#pragma once

#include <string>
#include <utility>

namespace collrepro {

// The answer of supports(): yes, or no with a reason a user can act on.
struct Support {
  bool ok = true;
  std::string reason;
  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

// A cost-model prediction in the alpha-beta model, kept as linear coefficients so that
// alpha and beta can be fitted later: seconds = alpha_terms * alpha + beta_bytes * beta.
struct Cost {
  double alpha_terms = 0;
  double beta_bytes = 0;
  double seconds(double alpha, double beta) const { return alpha_terms * alpha + beta_bytes * beta; }
};

}  // namespace collrepro

#pragma once
/// @file Shared by the io tests: a temporary directory, small problems built from seeded random
/// factors, and a check that an InputError message names what it must.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "problems/problem.hpp"
#include "tests/support/random.hpp"

namespace pscr::testing {

/// @brief A fresh directory under $TMPDIR (or /tmp), removed with its content on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/pscr-io-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  /// Names of the entries of the directory (hidden temporaries included), sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::string path_;
};

/// @brief A problem with random factors of the given grid shape (2 or 3 sizes).
template <class Scalar>
Problem<Scalar> random_problem(const std::vector<index_t>& shape, index_t nrhs, bool batched,
                               bool with_exact, bool with_generator, std::uint64_t seed) {
  std::vector<Factor<Scalar>> factors;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    Factor<Scalar> f;
    f.A.diag = random_vector<Scalar>(shape[d], seed + 10 * d);
    f.A.off = random_vector<Scalar>(shape[d] - 1, seed + 10 * d + 1);
    f.M.diag = random_vector<Scalar>(shape[d], seed + 10 * d + 2);
    f.M.off = random_vector<Scalar>(shape[d] - 1, seed + 10 * d + 3);
    factors.push_back(std::move(f));
  }
  SeparableOperator<Scalar> op(std::move(factors), random_vector<Scalar>(1, seed + 99)[0]);
  const index_t total = op.grid_size() * nrhs;
  std::vector<Scalar> f = random_vector<Scalar>(total, seed + 100);
  std::vector<Scalar> u;
  if (with_exact) u = random_vector<Scalar>(total, seed + 101);
  std::optional<GeneratorRecord> gen;
  if (with_generator) {
    GeneratorRecord g;
    g.description = "equation=poisson seed=" + std::to_string(seed) + " ünïcode";
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::vector<double> h(shape[d] + 1);
      for (std::size_t k = 0; k < h.size(); ++k) h[k] = 1.0 / (1.0 + k + d);
      g.steps.push_back(h);
    }
    gen = g;
  }
  return Problem<Scalar>{std::move(op), nrhs, batched, std::move(f), std::move(u), gen};
}

/// @brief Runs `body`, expects an InputError whose message contains every fragment.
template <class Body>
void expect_input_error(Body&& body, const std::vector<std::string>& fragments) {
  try {
    body();
    ADD_FAILURE() << "expected an InputError, nothing was thrown";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "message lacks \"" << frag << "\": " << msg;
  }
}

}  // namespace pscr::testing

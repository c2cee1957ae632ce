// The CPU reference tridiagonal solvers against a dense LU solve of the assembled systems: both
// forms, both methods, contiguous and interleaved layouts with padding, in place, real and
// complex, dominant and indefinite systems, a case where Thomas fails and pivoting does not; and
// the diagonal dominance checks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"
#include "tests/tridiag/systems.hpp"
#include "tridiag/reference/solve.hpp"

namespace pscr::tridiag {
namespace {

using testing::Batch;
using testing::Kind;

enum class Form { shifted, general };
enum class Method { thomas, pivoting };

/// Runs one reference solver on `t` with the given layouts (x poisoned with NaN before the run)
/// and returns x in canonical order; `padding_ok` reports whether the padding kept its poison.
template <class Scalar>
std::vector<Scalar> run(const Batch<Scalar>& t, Form form, Method method, BatchLayout dl,
                        BatchLayout xl, bool& padding_ok) {
  const index_t n = t.n, batch = t.batch;
  const auto d = testing::scatter(t.d, n, batch, dl);
  const auto a = testing::scatter(t.a, n, batch, dl);
  const auto b = testing::scatter(t.b, n, batch, dl);
  const auto c = testing::scatter(t.c, n, batch, dl);
  std::vector<Scalar> x(testing::extent(xl, n, batch), testing::nan_scalar<Scalar>());
  std::vector<Scalar> work(method == Method::thomas ? reference::workspace_size(n, batch)
                                                    : reference::pivoting_workspace_size(n, batch));
  const index_t wc = static_cast<index_t>(work.size());
  if (form == Form::shifted && method == Method::thomas)
    reference::solve_shifted(t.A, t.M, t.shifts.data(), batch, d.data(), dl, x.data(), xl,
                             work.data(), wc);
  else if (form == Form::shifted)
    reference::solve_shifted_pivoting(t.A, t.M, t.shifts.data(), batch, d.data(), dl, x.data(), xl,
                                      work.data(), wc);
  else if (method == Method::thomas)
    reference::solve_general(n, batch, a.data(), b.data(), c.data(), d.data(), dl, x.data(), xl,
                             work.data(), wc);
  else
    reference::solve_general_pivoting(n, batch, a.data(), b.data(), c.data(), d.data(), dl,
                                      x.data(), xl, work.data(), wc);
  return testing::gather(x, n, batch, xl, padding_ok);
}

/// Checks every method/layout combination of one batch against the dense oracle.
template <class Scalar>
void check_against_dense(const Batch<Scalar>& t, Form form, Method method) {
  const index_t n = t.n, batch = t.batch;
  const auto ref = testing::dense_solve(t);
  const auto cond = testing::condition_numbers(t);
  // (d layout, x layout): both padded contiguous, both padded interleaved, and mixed.
  const BatchLayout cont = testing::padded_layout(false, n, batch, 3);
  const BatchLayout inter = testing::padded_layout(true, n, batch, 2);
  const std::pair<BatchLayout, BatchLayout> layouts[] = {
      {cont, cont}, {inter, inter}, {cont, inter}, {inter, BatchLayout::contiguous(n)}};
  for (const auto& [dl, xl] : layouts) {
    bool padding_ok = false;
    const auto x = run(t, form, method, dl, xl, padding_ok);
    EXPECT_TRUE(padding_ok) << "a write outside the x layout, n " << n;
    for (index_t k = 0; k < batch; ++k) {
      // Both LU solves are backward stable here (dominant: no growth; pivoting: growth ≤ 2 per
      // step in the worst case, far less on these systems), so the forward error is bounded by
      // a small multiple of κ₁ · eps; 200 covers the norm equivalence constants.
      const double tol = pscr::testing::tolerance<Scalar>(200, cond[k]);
      const double err = testing::forward_error(x, ref, n, k);
      ASSERT_LE(err, tol) << "n " << n << ", system " << k << ", cond " << cond[k] << ", layouts ("
                          << dl.system_stride << "," << dl.row_stride << ") -> ("
                          << xl.system_stride << "," << xl.row_stride << ")";
    }
  }
}

template <class Scalar>
class ReferenceTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReferenceTest, pscr::testing::ScalarTypes);

index_t batch_for(index_t n) {
  return n >= 255 ? 2 : 5;
}

TYPED_TEST(ReferenceTest, ShiftedThomasDominant) {
  std::uint64_t seed = 10;
  for (index_t n : testing::cpu_sizes())
    check_against_dense(testing::make_shifted<TypeParam>(n, batch_for(n), Kind::dominant, seed++),
                        Form::shifted, Method::thomas);
}

TYPED_TEST(ReferenceTest, GeneralThomasDominant) {
  std::uint64_t seed = 20;
  for (index_t n : testing::cpu_sizes())
    check_against_dense(testing::make_general<TypeParam>(n, batch_for(n), Kind::dominant, seed++),
                        Form::general, Method::thomas);
}

TYPED_TEST(ReferenceTest, ShiftedPivoting) {
  std::uint64_t seed = 30;
  for (Kind kind : {Kind::dominant, Kind::indefinite})
    for (index_t n : testing::cpu_sizes())
      check_against_dense(testing::make_shifted<TypeParam>(n, batch_for(n), kind, seed++),
                          Form::shifted, Method::pivoting);
}

TYPED_TEST(ReferenceTest, GeneralPivoting) {
  std::uint64_t seed = 40;
  for (Kind kind : {Kind::dominant, Kind::indefinite})
    for (index_t n : testing::cpu_sizes())
      check_against_dense(testing::make_general<TypeParam>(n, batch_for(n), kind, seed++),
                          Form::general, Method::pivoting);
}

// Complex Helmholtz-like shifts with a damping imaginary part: T = R + iS with S positive
// definite, so every Schur complement keeps a positive definite imaginary part and Thomas needs no
// pivoting (the real indefinite shifts have no such bound: n = 2 already gives a zero diagonal).
TYPED_TEST(ReferenceTest, ShiftedThomasComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  std::uint64_t seed = 50;
  for (index_t n : testing::cpu_sizes())
    check_against_dense(testing::make_shifted<TypeParam>(n, batch_for(n), Kind::indefinite, seed++),
                        Form::shifted, Method::thomas);
}

// x aliases d (same layout), for every solver: PSCR solves in place.
TYPED_TEST(ReferenceTest, InPlace) {
  using Scalar = TypeParam;
  for (index_t n : {index_t{1}, index_t{2}, index_t{33}, index_t{255}}) {
    const index_t batch = 3;
    const auto t = testing::make_shifted<Scalar>(n, batch, Kind::dominant, 60 + n);
    const auto ref = testing::dense_solve(t);
    for (bool interleaved : {false, true}) {
      const BatchLayout l = testing::padded_layout(interleaved, n, batch, 1);
      for (int variant = 0; variant < 4; ++variant) {
        auto x = testing::scatter(t.d, n, batch, l);
        const auto a = testing::scatter(t.a, n, batch, l);
        const auto b = testing::scatter(t.b, n, batch, l);
        const auto c = testing::scatter(t.c, n, batch, l);
        std::vector<Scalar> work(reference::pivoting_workspace_size(n, batch));
        const index_t wc = static_cast<index_t>(work.size());
        switch (variant) {
          case 0:
            reference::solve_shifted(t.A, t.M, t.shifts.data(), batch, x.data(), l, x.data(), l,
                                     work.data(), wc);
            break;
          case 1:
            reference::solve_shifted_pivoting(t.A, t.M, t.shifts.data(), batch, x.data(), l,
                                              x.data(), l, work.data(), wc);
            break;
          case 2:
            reference::solve_general(n, batch, a.data(), b.data(), c.data(), x.data(), l, x.data(),
                                     l, work.data(), wc);
            break;
          default:
            reference::solve_general_pivoting(n, batch, a.data(), b.data(), c.data(), x.data(), l,
                                              x.data(), l, work.data(), wc);
        }
        bool padding_ok = false;
        const auto xs = testing::gather(x, n, batch, l, padding_ok);
        EXPECT_TRUE(padding_ok);
        for (index_t k = 0; k < batch; ++k)
          // Dominant systems, κ ≤ 10: a few eps.
          EXPECT_LE(testing::forward_error(xs, ref, n, k), pscr::testing::tolerance<Scalar>(200))
              << "variant " << variant << ", n " << n << ", interleaved " << interleaved;
      }
    }
  }
}

// A well-conditioned indefinite system with tiny diagonal (A = tridiag(1, δ, 1), M = I, s = 0,
// n even): Thomas's pivots alternate δ and ~ −1/δ, so its error grows like eps/δ, while scaled
// partial pivoting interchanges rows and meets a 1e-10 relative residual.
TYPED_TEST(ReferenceTest, PivotingSucceedsWhereThomasLosesAccuracy) {
  using Scalar = TypeParam;
  Batch<Scalar> t = testing::tiny_diagonal_batch<Scalar>();
  const index_t n = t.n, batch = t.batch;
  const auto cond = testing::condition_numbers(t);
  const BatchLayout l = BatchLayout::contiguous(n);
  for (Form form : {Form::shifted, Form::general}) {
    bool padding_ok = false;
    const auto x_thomas = run(t, form, Method::thomas, l, l, padding_ok);
    const auto x_pivot = run(t, form, Method::pivoting, l, l, padding_ok);
    for (index_t k = 0; k < batch; ++k) {
      EXPECT_LT(cond[k], 1e3);  // the system itself is harmless
      EXPECT_GT(testing::relative_residual(t, x_thomas, k), 1e-6) << "Thomas did not fail";
      EXPECT_LE(testing::relative_residual(t, x_pivot, k), 1e-10);
    }
  }
}

// Every system is solved by one thread in a fixed order: the thread count (here limited through
// the workspace) does not change a bit of the result.
TYPED_TEST(ReferenceTest, IndependentOfThreadCount) {
  using Scalar = TypeParam;
  const index_t n = 33, batch = 40;
  const auto t = testing::make_shifted<Scalar>(n, batch, Kind::indefinite, 90);
  const BatchLayout l = BatchLayout::interleaved(batch);
  std::vector<Scalar> x1(n * batch), x2(n * batch);
  std::vector<Scalar> work(3 * n * batch);
  reference::solve_shifted_pivoting(t.A, t.M, t.shifts.data(), batch, t.d.data(), l, x1.data(), l,
                                    work.data(), 3 * n);
  reference::solve_shifted_pivoting(t.A, t.M, t.shifts.data(), batch, t.d.data(), l, x2.data(), l,
                                    work.data(), 3 * n * batch);
  EXPECT_EQ(x1, x2);
}

TYPED_TEST(ReferenceTest, ZeroPivotThrowsSolverError) {
  using Scalar = TypeParam;
  const index_t n = 4, batch = 3;
  SymTridiag<Scalar> A{std::vector<Scalar>(n, Scalar(2)), std::vector<Scalar>(n - 1, Scalar(0))};
  SymTridiag<Scalar> M{std::vector<Scalar>(n, Scalar(1)), std::vector<Scalar>(n - 1, Scalar(0))};
  const std::vector<Scalar> shifts = {Scalar(1), Scalar(-2), Scalar(3)};  // system 1: A − 2M = 0
  const auto d = pscr::testing::random_vector<Scalar>(n * batch, 5);
  std::vector<Scalar> x(n * batch), work(3 * n * batch);
  const BatchLayout l = BatchLayout::contiguous(n);
  try {
    reference::solve_shifted(A, M, shifts.data(), batch, d.data(), l, x.data(), l, work.data(),
                             n * batch);
    FAIL() << "no SolverError";
  } catch (const SolverError& e) {
    EXPECT_NE(std::string(e.what()).find("system 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(reference::solve_shifted_pivoting(A, M, shifts.data(), batch, d.data(), l, x.data(),
                                                 l, work.data(), 3 * n * batch),
               SolverError);
}

// shifted_dominant / general_dominant: true on the dominant batches (general form in padded
// layouts, whose NaN padding and a_0, c_{n−1} they must not read), false as soon as one row of one
// system is not dominant; weak dominance (|b| = |a| + |c|) counts, NaN and a zero diagonal do
// not.
TYPED_TEST(ReferenceTest, DominanceChecks) {
  using Scalar = TypeParam;
  std::uint64_t seed = 60;
  for (index_t n : testing::cpu_sizes()) {
    auto t = testing::make_shifted<Scalar>(n, batch_for(n), Kind::dominant, seed++);
    const index_t batch = t.batch;
    EXPECT_TRUE(reference::shifted_dominant(t.A, t.M, t.shifts.data(), batch)) << "n " << n;
    auto general = [&](bool interleaved) {
      const BatchLayout l = testing::padded_layout(interleaved, n, batch, 2);
      const auto a = testing::scatter(t.a, n, batch, l);
      const auto b = testing::scatter(t.b, n, batch, l);
      const auto c = testing::scatter(t.c, n, batch, l);
      return reference::general_dominant(n, batch, a.data(), b.data(), c.data(), l);
    };
    EXPECT_TRUE(general(false)) << "n " << n;
    EXPECT_TRUE(general(true)) << "n " << n;
    // The last row of the last system loses its dominance by a little.
    const index_t last = batch * n - 1;
    const Scalar off = n > 1 ? t.a[last] : Scalar(0);
    t.b[last] = Scalar(0.999 * std::abs(off));
    EXPECT_FALSE(general(false)) << "n " << n;
    EXPECT_FALSE(general(true)) << "n " << n;
    // A shift that makes the diagonal of the last system vanish on its first row.
    t.shifts.back() = -t.A.diag[0] / t.M.diag[0];
    EXPECT_EQ(reference::shifted_dominant(t.A, t.M, t.shifts.data(), batch), false) << "n " << n;
  }
  const index_t n = 6;
  SymTridiag<Scalar> A{std::vector<Scalar>(n, Scalar(2)), std::vector<Scalar>(n - 1, Scalar(-1))};
  SymTridiag<Scalar> M{std::vector<Scalar>(n, Scalar(1)), std::vector<Scalar>(n - 1, Scalar(0))};
  const Scalar zero(0);
  EXPECT_TRUE(reference::shifted_dominant(A, M, &zero, 1));  // |2| = |−1| + |−1|
  A.off[2] = Scalar(std::nan(""));
  EXPECT_FALSE(reference::shifted_dominant(A, M, &zero, 1));
  // With a bound θ < 1: tridiag(ω, 1, ω), 2|ω| against θ (the window method's, 0.3219).
  A.diag.assign(n, Scalar(1));
  for (const auto& [omega, within] : {std::pair{0.16, true}, std::pair{0.165, false}}) {
    A.off.assign(n - 1, Scalar(omega));
    EXPECT_EQ(reference::shifted_dominant(A, M, &zero, 1, 0.3219), within) << omega;
    EXPECT_TRUE(reference::shifted_dominant(A, M, &zero, 1));
  }
}

TYPED_TEST(ReferenceTest, BadInputThrowsInputError) {
  using Scalar = TypeParam;
  const index_t n = 5;
  SymTridiag<Scalar> A{std::vector<Scalar>(n, Scalar(2)), std::vector<Scalar>(n - 1, Scalar(0))};
  SymTridiag<Scalar> M{std::vector<Scalar>(n - 1, Scalar(1)), std::vector<Scalar>(n - 2)};
  const Scalar s(1);
  std::vector<Scalar> d(n), x(n), work(3 * n);
  const BatchLayout l = BatchLayout::contiguous(n);
  EXPECT_THROW(reference::solve_shifted(A, M, &s, 1, d.data(), l, x.data(), l, work.data(), n),
               InputError);  // M of the wrong size
  EXPECT_THROW(reference::solve_shifted(A, A, &s, 1, d.data(), l, x.data(), l, work.data(), n - 1),
               InputError);  // workspace too small
  EXPECT_THROW(reference::solve_general_pivoting(n, 1, d.data(), d.data(), d.data(), d.data(), l,
                                                 x.data(), l, work.data(), 3 * n - 1),
               InputError);  // workspace too small
  EXPECT_THROW(reference::solve_general(n, 0, d.data(), d.data(), d.data(), d.data(), l, x.data(),
                                        l, work.data(), n),
               InputError);  // empty batch
  EXPECT_THROW(reference::solve_general(n, 1, d.data(), d.data(), d.data(), d.data(),
                                        BatchLayout{n, 0}, x.data(), l, work.data(), n),
               InputError);                                            // zero row stride
  EXPECT_THROW(reference::shifted_dominant(A, M, &s, 1), InputError);  // M of the wrong size
  EXPECT_THROW(reference::shifted_dominant(A, A, static_cast<const Scalar*>(nullptr), 1),
               InputError);
  EXPECT_THROW(reference::shifted_dominant(A, A, &s, 0), InputError);  // empty batch
  for (double theta : {0.0, -0.5, 1.5, std::nan("")})
    EXPECT_THROW(reference::shifted_dominant(A, A, &s, 1, theta), InputError) << theta;
  EXPECT_THROW(
      reference::general_dominant(n, 1, d.data(), static_cast<const Scalar*>(nullptr), d.data(), l),
      InputError);
  EXPECT_THROW(reference::general_dominant(0, 1, d.data(), d.data(), d.data(), l), InputError);
  EXPECT_THROW(reference::general_dominant(n, 1, d.data(), d.data(), d.data(), BatchLayout{n, 0}),
               InputError);  // zero row stride
}

}  // namespace
}  // namespace pscr::tridiag

// The GPU peers' call lists, executed on the CPU: the cuBLAS GEMM calls of the FD solve
// (pscr/fd/calls.hpp) with a plain column-major GEMM that enforces cuBLAS's argument rules
// and bounds, and the cuFFT DST pipeline (bench/peers/fft_plan.hpp) with a plain DFT that follows
// the plans' strides. Both must reproduce the CPU FD solve, so a wrong transpose flag, leading
// dimension, stride or offset fails here, on CI, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <variant>

#include "bench/peers/fft_plan.hpp"
#include "common/error.hpp"
#include "problems/generate.hpp"
#include "pscr/fd/calls.hpp"
#include "pscr/fd/setup.hpp"
#include "pscr/fd/thomas.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using fd::FdArray;
using fd::FdOp;
using problems::Boundary;
using problems::Equation;
using problems::MeshKind;

problems::ProblemSpec spec_for(Equation eq, MeshKind mesh, const std::vector<index_t>& shape,
                               std::uint64_t seed) {
  problems::ProblemSpec s;
  s.equation = eq;
  s.seed = seed;
  for (index_t n : shape) {
    problems::DimensionSpec d;
    d.n = n;
    d.mesh.kind = mesh;
    d.left = eq == Equation::helmholtz && n > 1 ? Boundary::absorbing : Boundary::dirichlet;
    d.right = eq == Equation::helmholtz ? Boundary::absorbing : Boundary::dirichlet;
    s.dims.push_back(d);
  }
  return s;
}

template <class Scalar>
real_t<Scalar> max_rel_diff(const std::vector<Scalar>& x, const std::vector<Scalar>& ref) {
  real_t<Scalar> diff = 0, scale = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    diff = std::max(diff, std::abs(x[k] - ref[k]));
    scale = std::max(scale, std::abs(ref[k]));
  }
  return diff / scale;
}

/// The arrays of pscr/fd/calls.hpp, as host vectors.
template <class Scalar>
struct FdArrays {
  std::vector<Scalar> f, u, work, tmp, wt1, wt2;
  std::vector<Scalar>& get(FdArray a) {
    switch (a) {
      case FdArray::f:
        return f;
      case FdArray::u:
        return u;
      case FdArray::work:
        return work;
      case FdArray::tmp:
        return tmp;
      case FdArray::wt1:
        return wt1;
      case FdArray::wt2:
        break;
    }
    return wt2;
  }
};

/// One GemmCall as cuBLAS defines it (column-major, alpha = 1, beta = 0), checking cuBLAS's
/// leading-dimension rules, every index against its array's size, that C is neither an input
/// nor f, and that no element of C is written twice (batches must not overlap).
template <class Scalar>
void emulate(const fd::GemmCall& g, FdArrays<Scalar>& arrays) {
  ASSERT_NE(g.c, FdArray::f);
  ASSERT_NE(g.c, g.a);
  ASSERT_NE(g.c, g.b);
  ASSERT_GE(g.lda, g.ta == FdOp::n ? g.m : g.k);
  ASSERT_GE(g.ldb, g.tb == FdOp::n ? g.k : g.n);
  ASSERT_GE(g.ldc, g.m);
  const std::vector<Scalar>& a = arrays.get(g.a);
  const std::vector<Scalar>& b = arrays.get(g.b);
  std::vector<Scalar>& c = arrays.get(g.c);
  std::vector<char> written(c.size(), 0);
  auto at = [](const std::vector<Scalar>& x, long long i) {
    EXPECT_LT(i, static_cast<long long>(x.size()));
    return x[std::min<std::size_t>(static_cast<std::size_t>(i), x.size() - 1)];
  };
  for (int batch = 0; batch < g.batch; ++batch)
    for (int j = 0; j < g.n; ++j)
      for (int i = 0; i < g.m; ++i) {
        Scalar sum = 0;
        for (int p = 0; p < g.k; ++p) {
          const long long ia =
              batch * g.sa + (g.ta == FdOp::n ? i + 1LL * p * g.lda : p + 1LL * i * g.lda);
          const long long ib =
              batch * g.sb + (g.tb == FdOp::n ? p + 1LL * j * g.ldb : j + 1LL * p * g.ldb);
          sum += at(a, ia) * at(b, ib);
        }
        const long long ic = batch * g.sc + i + 1LL * j * g.ldc;
        ASSERT_LT(ic, static_cast<long long>(c.size()));
        ASSERT_EQ(written[ic], 0) << "element " << ic << " of C written twice";
        written[ic] = 1;
        c[ic] = sum;
      }
}

template <class Scalar>
class GpuPlansTest : public ::testing::Test {};
TYPED_TEST_SUITE(GpuPlansTest, testing::ScalarTypes);

// The FD solve as FdGpuSolver runs it: forward GEMMs, Thomas on the interleaved work array with
// tmp as scratch (the kernel's arguments), inverse GEMMs.
TYPED_TEST(GpuPlansTest, FdCallsReproduceTheCpuSolve) {
  using Scalar = TypeParam;
  const Equation eq = is_complex_v<Scalar> ? Equation::helmholtz : Equation::poisson;
  const std::vector<std::vector<index_t>> shapes = {{1, 1},    {1, 4},    {5, 1},    {3, 7},
                                                    {17, 9},   {16, 15},  {1, 1, 1}, {3, 5, 7},
                                                    {9, 4, 5}, {2, 1, 3}, {1, 6, 2}, {7, 15, 3}};
  std::uint64_t seed = 3;
  for (const auto& shape : shapes) {
    const auto p = std::get<Problem<Scalar>>(
        problems::generate(spec_for(eq, MeshKind::random, shape, seed++)));
    const auto setup = fd::fd_setup(p.op);
    const fd::FdCalls calls = fd::fd_calls(shape);
    const index_t size = p.op.grid_size();
    ASSERT_EQ(calls.systems * calls.rows, size);
    ASSERT_EQ(calls.systems, setup.systems());

    FdArrays<Scalar> arrays;
    arrays.f = p.f;
    arrays.u.assign(size, Scalar(0));
    arrays.work.assign(size, Scalar(0));
    arrays.tmp.assign(size, Scalar(0));
    arrays.wt1 = setup.eig[0].W;  // uploaded as it is: column-major Wᵀ
    if (shape.size() == 3) arrays.wt2 = setup.eig[1].W;
    for (const auto& g : calls.forward) ASSERT_NO_FATAL_FAILURE(emulate(g, arrays));
    const Factor<Scalar>& t = setup.last;
    for (index_t s = 0; s < calls.systems; ++s)
      fd::thomas_shifted<Scalar, index_t>(
          calls.rows, t.A.diag.data(), t.A.off.data(), t.M.diag.data(), t.M.off.data(),
          setup.shifts[s], arrays.work.data() + s, arrays.tmp.data() + s, calls.systems);
    for (const auto& g : calls.inverse) ASSERT_NO_FATAL_FAILURE(emulate(g, arrays));
    ASSERT_EQ(arrays.f, p.f) << "f was modified";

    std::vector<Scalar> ref(size);
    fd::fd_solve(setup, p.f.data(), ref.data());
    // The same arithmetic up to the order of the sums.
    const double n = static_cast<double>(*std::max_element(shape.begin(), shape.end()));
    EXPECT_LE(max_rel_diff(arrays.u, ref), testing::tolerance<Scalar>(100, n))
        << "shape size " << shape.size() << ", n1 " << shape[0];
  }
}

// The DST pipeline as FftPoissonSolver runs it (the extend kernel's index arithmetic, cuFFT's
// advanced layout), against the CPU FD solve of the same uniform-grid problem.
TEST(GpuPlans, DstPipelineReproducesTheCpuSolve) {
  using C = std::complex<double>;
  const std::vector<std::vector<index_t>> shapes = {{1, 1},    {1, 3},    {4, 1},    {5, 3},
                                                    {7, 8},    {15, 17},  {1, 1, 1}, {3, 4, 5},
                                                    {5, 2, 7}, {8, 3, 1}, {1, 6, 4}};
  std::uint64_t seed = 5;
  for (double screening : {0.0, 2.5}) {
    for (const auto& shape : shapes) {
      auto spec = spec_for(Equation::poisson, MeshKind::uniform, shape, seed++);
      spec.screening = screening;
      const auto p = std::get<Problem<double>>(problems::generate(spec));
      const peers::DstPipeline pipe = peers::dst_pipeline(shape);
      const peers::DstScaling scale = peers::dst_scaling(p.op);
      const index_t size = p.op.grid_size();
      std::vector<double> ext(pipe.ext_size);
      std::vector<C> spectrum(pipe.spec_size);
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t k = 0; k < pipe.steps.size(); ++k) {
          const peers::DstStep& st = pipe.steps[k];
          const bool from_f = pass == 0 && k == 0, scaled = pass == 1 && k == 0;
          const peers::DstSource src =
              k > 0 ? st.source : (pass == 0 ? pipe.from_f : pipe.from_spectrum);
          const index_t total = 2 * (st.n + 1) * st.outer * st.inner;
          ASSERT_LE(total, pipe.ext_size);
          for (index_t t = 0; t < total; ++t) {
            const peers::ExtendSlot slot = peers::extend_slot(st, src, t);
            double v = 0;
            if (!slot.zero) {
              ASSERT_LT(slot.at, from_f ? size : pipe.spec_size);
              v = from_f ? p.f[slot.at] : -0.5 * spectrum[slot.at].imag();
              if (scaled)
                v = peers::dst_scale(v, scale.lead.data(), scale.last.data(), scale.c, scale.factor,
                                     slot.o, slot.r);
              if (slot.negative) v = -v;
            }
            ext[t] = v;
          }
          // cuFFT D2Z with the plan's advanced layout, as a plain DFT.
          ASSERT_EQ(st.len, 2 * (st.n + 1));
          for (int b = 0; b < st.batch; ++b)
            for (int e = 0; e <= st.len / 2; ++e) {
              C sum = 0;
              for (int x = 0; x < st.len; ++x) {
                const long long in = 1LL * b * st.idist + 1LL * x * st.istride;
                EXPECT_LT(in, pipe.ext_size);
                sum += ext[in] * std::polar(1.0, -2 * M_PI * double(x) * e / st.len);
              }
              const long long out = 1LL * b * st.odist + 1LL * e * st.ostride;
              ASSERT_LT(out, pipe.spec_size);
              spectrum[out] = sum;
            }
        }
      }
      std::vector<double> u(size);
      for (index_t t = 0; t < size; ++t) {
        ASSERT_LT(pipe.extract_offset + t, pipe.spec_size);
        u[t] = -0.5 * spectrum[pipe.extract_offset + t].imag();
      }
      std::vector<double> ref(size);
      fd::fd_solve(fd::fd_setup(p.op), p.f.data(), ref.data());
      const double n = static_cast<double>(*std::max_element(shape.begin(), shape.end()));
      EXPECT_LE(max_rel_diff(u, ref), testing::tolerance<double>(100, n * n))
          << "shape size " << shape.size() << ", n1 " << shape[0] << ", c " << screening;
    }
  }
}

TEST(GpuPlans, DstScalingRejectsNonUniformMeshes) {
  const auto graded = std::get<Problem<double>>(
      problems::generate(spec_for(Equation::poisson, MeshKind::graded, {5, 6}, 1)));
  EXPECT_THROW(peers::dst_scaling(graded.op), InputError);
  auto neumann = spec_for(Equation::poisson, MeshKind::uniform, {5, 6}, 1);
  neumann.dims[1].left = Boundary::neumann;
  const auto p = std::get<Problem<double>>(problems::generate(neumann));
  EXPECT_THROW(peers::dst_scaling(p.op), InputError);
}

}  // namespace
}  // namespace pscr

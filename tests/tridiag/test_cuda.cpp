// Every GPU tridiagonal method against its CPU reference twin on the same data: sizes above and
// around the warp size and the shared-memory limits, batches from 1 to 10^5, contiguous and
// interleaved layouts with padding, rows with a stride, mixed layouts, in place, real and complex,
// dominant and indefinite systems. Outputs are poisoned with NaN before each run; padding must stay
// NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/error.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"
#include "tests/tridiag/systems.hpp"
#include "tridiag/cuda/selection.hpp"
#include "tridiag/cuda/solve.hpp"
#include "tridiag/reference/solve.hpp"

namespace pscr::tridiag {
namespace {

using pscr::cuda::DeviceBuffer;
using testing::Batch;
using testing::Kind;

enum class Form { shifted, general };

/// One GPU configuration: a non-pivoting method with its options, or the pivoting solver.
struct Config {
  std::string name;
  bool pivoting = false;
  cuda::Options options;
};

/// The configurations of `method` with K = ks, named "NAME K=k".
std::vector<Config> method_configs(const std::string& name, cuda::Method method,
                                   std::initializer_list<int> ks) {
  std::vector<Config> configs;
  for (int k : ks) configs.push_back({name + " K=" + std::to_string(k), false, {method, k}});
  return configs;
}

std::vector<Config> non_pivoting_configs() {
  std::vector<Config> configs = {{"thomas", false, {cuda::Method::thomas, 0}}};
  auto add = [&](const std::vector<Config>& more) {
    configs.insert(configs.end(), more.begin(), more.end());
  };
  for (int m : {4, 8, 16})
    for (cuda::Staging staging : {cuda::Staging::global, cuda::Staging::shared})
      configs.push_back(
          {"partition M=" + std::to_string(m) + (staging == cuda::Staging::shared ? " staged" : ""),
           false,
           {cuda::Method::partition, m, staging}});
  // warp: K from n (0), and K = 16 (most rows per lane: many identity rows on small n); n > 512
  // runs the partition method.
  for (int k : {0, 16})
    for (cuda::Staging staging : {cuda::Staging::global, cuda::Staging::shared})
      configs.push_back(
          {"warp K=" + std::to_string(k) + (staging == cuda::Staging::shared ? " staged" : ""),
           false,
           {cuda::Method::warp, k, staging}});
  // segment: one pass up to n = 32·K, reduce + recursive coarse solve + substitute beyond;
  // interleaved layouts run the columns method (same K).
  add(method_configs("segment", cuda::Method::segment, {2, 8, 16}));
  // columns (interleaved layouts; contiguous rows through tiles, complex shifted, one segment,
  // else the segment method): one pass up to
  // n = 32·K, with 1 to 32 chunks per system (8 to 256 systems per block), reduce + recursive
  // coarse solve + substitute beyond (segments of 16 chunks real, 8 complex).
  add(method_configs("columns", cuda::Method::columns, {2, 4, 8, 16}));
  // block: one pass for 2 to 16 segments (K = 2: n ≤ 1024; 4: n ≤ 2048; 8: n ≤ 4096; 16:
  // n ≤ 8192, the shifted form's tables fitting up to 13 segments); the segment method otherwise.
  // Complex K ≤ 4 has one warp solve the coarse system (segment_block_solo_coarse).
  add(method_configs("block", cuda::Method::block, {2, 4, 8, 16}));
  // sweep: K from n (0), and K = 16 where n is smaller (identity rows); real n = 1000, 1023, 4097
  // and 8191 the cluster kernel (K = 16 every time: K = 8 would pad none or 6% fewer rows),
  // complex n = 1000 and 1023 its InBlock instance where K = 16 is asked for; the general form,
  // interleaved layouts, complex n > 8192 and n > 16384 run the block method.
  add(method_configs("sweep", cuda::Method::sweep, {0, 16}));
  // tiled PCR: k from n (0: 4 steps, fewer on n < 16), one step (two independent systems), five
  // (more independent systems than rows on small n: identity padding), the most (halo of 255
  // rows around each 4096-row chunk). The independent systems take the table's method.
  add(method_configs("tiled_pcr", cuda::Method::tiled_pcr, {0, 1, 5, cuda::kTiledPcrMaxSteps}));
  // window: contiguous shifted systems of more than 512 rows, in place and elsewhere the sweep
  // method's rules; the real dominant batches here pass its bound (|a| + |c| ≤ 2/7 |b|), the
  // complex ones mostly not (solved again by the table's method).
  add(method_configs("window", cuda::Method::window, {0, 16}));
  configs.push_back({"automatic", false, {}});
  // The table's entries for diagonally dominant systems (complex: more rows per lane). Every batch
  // these configurations run on is dominant or, ShiftedComplexDamped's, has a positive definite
  // imaginary part, which needs no pivoting either.
  configs.push_back(
      {"automatic dominant", false, {cuda::Method::automatic, 0, cuda::Staging::automatic, true}});
  return configs;
}
const Config kPivoting{"pivoting", true, {}};

/// The issue 5 sizes, and the batches run for each (n·batch stays small enough for the CPU
/// reference; the 10^5 batches are in LargeBatch).
const std::vector<index_t> kSizes = {1, 2, 3, 31, 32, 33, 63, 255, 1000, 1023, 4097, 8191, 65537};
std::vector<index_t> batches_for(index_t n) {
  if (n <= 63) return {1, 7, 300};
  if (n <= 1023) return {1, 7, 130};
  if (n <= 8191) return {1, 5};
  return {1, 3};
}

template <class Scalar>
DeviceBuffer<Scalar> upload(const std::vector<Scalar>& v) {
  DeviceBuffer<Scalar> b(v.size());
  b.copy_from_host(v.data());
  return b;
}

/// Runs one GPU configuration on `t` (x poisoned with NaN, or x = d when in_place) and returns x
/// in canonical order; `padding_ok` says whether every element outside x's layout kept its NaN.
template <class Scalar>
std::vector<Scalar> run_gpu(const Batch<Scalar>& t, Form form, const Config& cfg, BatchLayout dl,
                            BatchLayout xl, bool in_place, bool& padding_ok) {
  const index_t n = t.n, batch = t.batch;
  auto d_d = upload(testing::scatter(t.d, n, batch, dl));
  auto d_a = upload(testing::scatter(t.a, n, batch, dl));
  auto d_b = upload(testing::scatter(t.b, n, batch, dl));
  auto d_c = upload(testing::scatter(t.c, n, batch, dl));
  DeviceBuffer<Scalar> d_xbuf;
  if (!in_place) {
    d_xbuf =
        upload(std::vector<Scalar>(testing::extent(xl, n, batch), testing::nan_scalar<Scalar>()));
  }
  Scalar* d_x = in_place ? d_d.data() : d_xbuf.data();
  const cuda::DeviceSymTridiagBuffer<Scalar> A(t.A.diag.empty() ? SymTridiag<Scalar>{} : t.A);
  const cuda::DeviceSymTridiagBuffer<Scalar> M(t.M.diag.empty() ? SymTridiag<Scalar>{} : t.M);
  auto d_shifts = upload(t.shifts.empty() ? std::vector<Scalar>(1) : t.shifts);
  const index_t wc = cfg.pivoting ? cuda::pivoting_workspace_size(n, batch)
                                  : cuda::workspace_size<Scalar>(n, batch, cfg.options);
  DeviceBuffer<Scalar> d_ws(std::max<index_t>(wc, 1));
  const pscr::cuda::Stream stream;
  if (form == Form::shifted && !cfg.pivoting)
    cuda::solve_shifted(stream.get(), A.view(), M.view(), d_shifts.data(), batch, d_d.data(), dl,
                        d_x, xl, d_ws.data(), wc, cfg.options);
  else if (form == Form::shifted)
    cuda::solve_shifted_pivoting(stream.get(), A.view(), M.view(), d_shifts.data(), batch,
                                 d_d.data(), dl, d_x, xl, d_ws.data(), wc);
  else if (!cfg.pivoting)
    cuda::solve_general(stream.get(), n, batch, d_a.data(), d_b.data(), d_c.data(), d_d.data(), dl,
                        d_x, xl, d_ws.data(), wc, cfg.options);
  else
    cuda::solve_general_pivoting(stream.get(), n, batch, d_a.data(), d_b.data(), d_c.data(),
                                 d_d.data(), dl, d_x, xl, d_ws.data(), wc);
  stream.synchronize();
  PSCR_CUDA_CHECK(cudaGetLastError());
  std::vector<Scalar> x(in_place ? d_d.size() : d_xbuf.size());
  (in_place ? d_d : d_xbuf).copy_to_host(x.data());
  return testing::gather(x, n, batch, xl, padding_ok);
}

/// The reference twin's solution (Thomas, or the pivoting LU for the pivoting config).
template <class Scalar>
std::vector<Scalar> reference_solution(const Batch<Scalar>& t, bool pivoting) {
  const index_t n = t.n, batch = t.batch;
  const BatchLayout l = BatchLayout::contiguous(n);
  std::vector<Scalar> x(n * batch);
  std::vector<Scalar> work(reference::pivoting_workspace_size(n, batch));
  const index_t wc = static_cast<index_t>(work.size());
  if (pivoting)
    reference::solve_general_pivoting(n, batch, t.a.data(), t.b.data(), t.c.data(), t.d.data(), l,
                                      x.data(), l, work.data(), wc);
  else
    reference::solve_general(n, batch, t.a.data(), t.b.data(), t.c.data(), t.d.data(), l, x.data(),
                             l, work.data(), wc);
  return x;
}

/// Runs every config on every layout case and compares with the reference twin.
template <class Scalar>
void check_configs(const Batch<Scalar>& t, Form form, const std::vector<Config>& configs) {
  const index_t n = t.n, batch = t.batch;
  const auto cond = testing::condition_numbers(t);
  const auto ref_thomas = reference_solution(t, false);
  const auto ref_pivoting = reference_solution(t, true);
  const BatchLayout cont = testing::padded_layout(false, n, batch, 3);
  const BatchLayout inter = testing::padded_layout(true, n, batch, 5);
  // Rows of a system every other element (PSCR's systems inside larger arrays): row-fastest, so
  // the methods of contiguous systems take it, but not contiguous rows.
  const BatchLayout strided{2 * n + 3, 2};
  struct Case {
    BatchLayout dl, xl;
    bool in_place;
    const char* name;
  };
  const Case cases[] = {
      {cont, cont, false, "contiguous"},
      {inter, inter, false, "interleaved"},
      {cont, inter, false, "contiguous -> interleaved"},
      {strided, strided, false, "strided rows"},
      {BatchLayout::contiguous(n), BatchLayout::contiguous(n), true, "contiguous in place"},
      {inter, inter, true, "interleaved in place"}};
  for (const Config& cfg : configs) {
    for (const Case& c : cases) {
      bool padding_ok = false;
      const auto x = run_gpu(t, form, cfg, c.dl, c.xl, c.in_place, padding_ok);
      EXPECT_TRUE(padding_ok) << cfg.name << ", " << c.name << ": a write outside x's layout";
      const auto& ref = cfg.pivoting ? ref_pivoting : ref_thomas;
      for (index_t k = 0; k < batch; ++k) {
        // Both solves are backward stable on these systems, so they agree to a small multiple
        // of κ₁ · eps (as in test_reference.cpp).
        const double err = testing::forward_error(x, ref, n, k);
        ASSERT_LE(err, pscr::testing::tolerance<Scalar>(200, cond[k]))
            << cfg.name << ", " << c.name << ", n " << n << ", batch " << batch << ", system " << k
            << ", cond " << cond[k];
      }
    }
  }
}

/// check_configs on dominant shifted systems of each (n, batch) shape, seeds from `seed` on.
template <class Scalar>
void check_shifted_shapes(std::initializer_list<std::pair<index_t, index_t>> shapes,
                          const std::vector<Config>& configs, std::uint64_t seed) {
  for (const auto& [n, batch] : shapes)
    check_configs(testing::make_shifted<Scalar>(n, batch, Kind::dominant, seed++), Form::shifted,
                  configs);
}

/// check_configs on dominant systems of both forms (shifted, then general) of n rows for each n
/// in `sizes`, `batch` systems each, seeds from `seed` on.
template <class Scalar>
void check_both_forms(std::initializer_list<index_t> sizes, index_t batch,
                      const std::vector<Config>& configs, std::uint64_t seed) {
  for (index_t n : sizes) {
    check_configs(testing::make_shifted<Scalar>(n, batch, Kind::dominant, seed++), Form::shifted,
                  configs);
    check_configs(testing::make_general<Scalar>(n, batch, Kind::dominant, seed++), Form::general,
                  configs);
  }
}

template <class Scalar>
class CudaTridiagTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (pscr::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};
TYPED_TEST_SUITE(CudaTridiagTest, pscr::testing::ScalarTypes);

TYPED_TEST(CudaTridiagTest, ShiftedDominant) {
  auto configs = non_pivoting_configs();
  configs.push_back(kPivoting);
  std::uint64_t seed = 100;
  for (index_t n : kSizes)
    for (index_t batch : batches_for(n))
      check_configs(testing::make_shifted<TypeParam>(n, batch, Kind::dominant, seed++),
                    Form::shifted, configs);
}

TYPED_TEST(CudaTridiagTest, GeneralDominant) {
  auto configs = non_pivoting_configs();
  configs.push_back(kPivoting);
  std::uint64_t seed = 200;
  for (index_t n : kSizes)
    for (index_t batch : batches_for(n))
      check_configs(testing::make_general<TypeParam>(n, batch, Kind::dominant, seed++),
                    Form::general, configs);
}

// Complex Helmholtz-like shifts with a damping imaginary part: no pivoting needed (see
// test_reference.cpp), so every method must solve them.
TYPED_TEST(CudaTridiagTest, ShiftedComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  auto configs = non_pivoting_configs();
  configs.push_back(kPivoting);
  std::uint64_t seed = 300;
  for (index_t n : kSizes)
    for (index_t batch : batches_for(n))
      check_configs(testing::make_shifted<TypeParam>(n, batch, Kind::indefinite, seed++),
                    Form::shifted, configs);
}

// The window method where every window passes its decay bound (|a| + |c| ≤ 0.32 |b| on every
// row): the dominant batches with A's and M's diagonals four times larger, so that the complex
// ones pass too (a bound of about 1/4); each window's x is what the call returns. Checked,
// assured, and `automatic` assured (the window method where the table's entry flags it: on the
// H100 the real and complex systems of 65537 rows; elsewhere the entry's configuration).
TYPED_TEST(CudaTridiagTest, WindowMethodOnStronglyDominantSystems) {
  std::uint64_t seed = 350;
  for (index_t n : {513, 1000, 4097, 8191, 65537})
    for (index_t batch : {index_t{1}, index_t{7}}) {
      auto t = testing::make_shifted<TypeParam>(n, batch, Kind::dominant, seed++);
      for (auto* diag : {&t.A.diag, &t.M.diag})
        for (TypeParam& e : *diag) e *= 4.0;
      testing::fill_explicit_from_shifted(t);
      auto configs = method_configs("window", cuda::Method::window, {16});
      cuda::Options assured{cuda::Method::window, 16};
      assured.window_bound = true;
      configs.push_back({"window assured", false, assured});
      cuda::Options automatic;
      automatic.window_bound = true;
      configs.push_back({"automatic assured", false, automatic});
      check_configs(t, Form::shifted, configs);
    }
}

/// A dominant batch (testing::make_shifted, Kind::dominant: row ratios (|a| + |c|) / |b| up to
/// about 2/7) with the couplings of A and M raised by factors of 1.25 until some row is past the
/// window method's bound θ ≈ 0.32: then by at most 1.25 θ ≈ 0.40, still diagonally dominant.
template <class Scalar>
testing::Batch<Scalar> past_window_bound(index_t n, index_t batch, std::uint64_t seed) {
  auto t = testing::make_shifted<Scalar>(n, batch, Kind::dominant, seed);
  while (reference::shifted_dominant(t.A, t.M, t.shifts.data(), batch, cuda::window_theta()))
    for (auto* off : {&t.A.off, &t.M.off})
      for (Scalar& e : *off) e *= 1.25;
  testing::fill_explicit_from_shifted(t);
  return t;
}

// The window method on dominant batches past its bound (past_window_bound): its check counts them
// (real shifts: the window kernel's watch, which then stops), and the exact fallback (the table's
// method, gated on the count) solves them, on every layout (rows contiguous: the sweep window
// kernel and the sweep, block or segment method; side by side: the columns method's windows and
// its passes; in place the fallback alone); and `automatic`, which takes the window method where
// the table's entry is flagged `checked` (on the H100, real and complex 65537 rows).
TYPED_TEST(CudaTridiagTest, WindowMethodPastItsBoundFallsBack) {
  std::uint64_t seed = 390;
  for (index_t n : {513, 1000, 4097, 8191, 65537})
    for (index_t batch : {index_t{1}, index_t{7}, index_t{300}}) {
      if (n * batch > 2000000) continue;
      const auto t = past_window_bound<TypeParam>(n, batch, seed++);
      auto configs = method_configs("window", cuda::Method::window, {16});
      configs.push_back({"automatic", false, {}});  // the window method where `checked` says
      check_configs(t, Form::shifted, configs);
    }
}

/// The count that Method::window, its bound not assured, leaves in the workspace's first 4 bytes
/// (solve.hpp: 0 where the window kernel's solution stands, else the warps that found a row past
/// the bound) after solving `t` with d and x apart in `layout`.
template <class Scalar>
unsigned window_count(const Batch<Scalar>& t, BatchLayout layout) {
  const index_t n = t.n, batch = t.batch;
  const auto d = upload(testing::scatter(t.d, n, batch, layout));
  DeviceBuffer<Scalar> x(testing::extent(layout, n, batch));
  const cuda::DeviceSymTridiagBuffer<Scalar> A(t.A), M(t.M);
  const auto shifts = upload(t.shifts);
  const cuda::Options window{cuda::Method::window, 16};
  const index_t wc = cuda::workspace_size<Scalar>(n, batch, window);
  DeviceBuffer<Scalar> ws(wc);
  const pscr::cuda::Stream stream;
  cuda::solve_shifted(stream.get(), A.view(), M.view(), shifts.data(), batch, d.data(), layout,
                      x.data(), layout, ws.data(), wc, window);
  stream.synchronize();
  unsigned count = 0;
  PSCR_CUDA_CHECK(cudaMemcpy(&count, ws.data(), sizeof count, cudaMemcpyDeviceToHost));
  return count;
}

// The window kernels' watch decides on the device as the check does (the emulation compares
// their arithmetic, window_watch_bounded): no warp counts a row of a batch within the bound, so
// the window kernel's solution stands, and some warp counts one of a batch past it, so the
// fallback solves it; on contiguous rows (the sweep window kernel) and side by side (the columns
// windows), for dominant batches within the bound and past it, and for single systems whose
// largest row ratio is 1% below or above θ. The other window tests would pass with a watch that
// counted every batch (the exact fallback solves it) and nearly so with one that counted none
// (the window method's error on rows up to 1.25 θ is small).
TYPED_TEST(CudaTridiagTest, WindowWatchCountsOnTheDevice) {
  using S = TypeParam;
  const double theta = cuda::window_theta();
  std::uint64_t seed = 520;
  for (index_t n : {1000, 8191}) {
    auto strong = testing::make_shifted<S>(n, 7, Kind::dominant, seed++);
    for (auto* diag : {&strong.A.diag, &strong.M.diag})
      for (S& e : *diag) e *= 4.0;
    const std::pair<Batch<S>, const char*> batches[] = {
        {strong, "dominant, within the bound"},
        {past_window_bound<S>(n, 7, seed++), "dominant, past the bound"},
        {testing::make_shifted_at_ratio<S>(n, 0.99 * theta, seed++), "ratio 0.99 θ"},
        {testing::make_shifted_at_ratio<S>(n, 1.01 * theta, seed++), "ratio 1.01 θ"}};
    for (const auto& [t, name] : batches) {
      const bool within = reference::shifted_dominant(t.A, t.M, t.shifts.data(), t.batch, theta);
      for (bool interleaved : {false, true}) {
        const BatchLayout layout = testing::padded_layout(interleaved, n, t.batch, 3);
        const unsigned count = window_count(t, layout);
        if (within)
          EXPECT_EQ(count, 0u) << name << ", n " << n << (interleaved ? ", interleaved" : "");
        else
          EXPECT_GT(count, 0u) << name << ", n " << n << (interleaved ? ", interleaved" : "");
      }
    }
  }
}

// The window method waits for nothing on the host, its check's count read by its kernels on
// the device, so a call captured into a CUDA graph solves every launch of the graph: a batch
// within the bound (the window kernel) and one past it (the exact fallback), each launched twice
// with other right-hand sides copied into d between the launches, against the reference; rows
// contiguous and side by side (the sweep window kernel and the columns method's windows).
TYPED_TEST(CudaTridiagTest, WindowMethodCapturedIntoAGraph) {
  using S = TypeParam;
  const index_t n = 4097, batch = 5;
  const double theta = cuda::window_theta();
  for (const auto [within, interleaved] : {std::pair{true, false}, std::pair{false, false},
                                           std::pair{true, true}, std::pair{false, true}}) {
    SCOPED_TRACE(std::string(within ? "within the bound" : "past the bound") +
                 (interleaved ? ", interleaved" : ", contiguous"));
    const BatchLayout l =
        interleaved ? BatchLayout::interleaved(batch) : BatchLayout::contiguous(n);
    // System k's row r, stored at offset(k, r) in l, at k·n + r in the reference's order.
    const auto offset = [&](index_t k, index_t r) {
      return k * l.system_stride + r * l.row_stride;
    };
    auto t = within ? testing::make_shifted<S>(n, batch, Kind::dominant, 395)
                    : past_window_bound<S>(n, batch, 396);
    if (within) {
      for (auto* diag : {&t.A.diag, &t.M.diag})
        for (S& e : *diag) e *= 4.0;
      testing::fill_explicit_from_shifted(t);
    }
    ASSERT_EQ(reference::shifted_dominant(t.A, t.M, t.shifts.data(), batch, theta), within);
    const cuda::DeviceSymTridiagBuffer<S> A(t.A), M(t.M);
    const DeviceBuffer<S> shifts = upload(t.shifts);
    DeviceBuffer<S> d(n * batch), x(n * batch);
    const cuda::Options window{cuda::Method::window, 16};
    const index_t wc = cuda::workspace_size<S>(n, batch, window);
    DeviceBuffer<S> ws(std::max<index_t>(wc, 1));
    const pscr::cuda::Stream stream;
    cudaGraph_t graph = nullptr;
    PSCR_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    cuda::solve_shifted(stream.get(), A.view(), M.view(), shifts.data(), batch, d.data(), l,
                        x.data(), l, ws.data(), wc, window);
    PSCR_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    PSCR_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
      t.d = pscr::testing::random_vector<S>(n * batch, 397 + 2 * launch + within);
      std::vector<S> stored(n * batch), got(n * batch);
      for (index_t k = 0; k < batch; ++k)
        for (index_t r = 0; r < n; ++r) stored[offset(k, r)] = t.d[k * n + r];
      d.copy_from_host(stored.data());
      x.copy_from_host(std::vector<S>(n * batch, testing::nan_scalar<S>()).data());
      PSCR_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
      stream.synchronize();
      x.copy_to_host(stored.data());
      for (index_t k = 0; k < batch; ++k)
        for (index_t r = 0; r < n; ++r) got[k * n + r] = stored[offset(k, r)];
      const auto ref = reference_solution(t, false);
      const auto cond = testing::condition_numbers(t);
      for (index_t k = 0; k < batch; ++k)
        ASSERT_LE(testing::forward_error(got, ref, n, k), pscr::testing::tolerance<S>(200, cond[k]))
            << "launch " << launch << ", system " << k;
    }
    PSCR_CUDA_CHECK(cudaGraphExecDestroy(exec));
    PSCR_CUDA_CHECK(cudaGraphDestroy(graph));
  }
}

// window_bound_holds against the reference's dominance check with θ, as the emulation's
// WindowRowBoundAgainstTheReference checks its row test: systems of 1000 rows whose largest row
// ratio (|a| + |c|) / |b| lies within 12% of θ either way, one per call: the same answer.
TYPED_TEST(CudaTridiagTest, WindowBoundHoldsAgainstTheReference) {
  using S = TypeParam;
  const double theta = cuda::window_theta();
  std::mt19937_64 gen(370);
  std::uniform_real_distribution<double> spread(0.88, 1.12);
  int passed = 0, failed = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const Batch<S> t = testing::make_shifted_at_ratio<S>(1000, theta * spread(gen), 380 + trial);
    const cuda::DeviceSymTridiagBuffer<S> A(t.A), M(t.M);
    const DeviceBuffer<S> shifts = upload(t.shifts);
    const bool bounded = cuda::window_bound_holds<S>(nullptr, A.view(), M.view(), shifts.data(), 1);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(bounded, reference::shifted_dominant(t.A, t.M, t.shifts.data(), 1, theta));
    ++(bounded ? passed : failed);
  }
  EXPECT_GT(passed, 20);
  EXPECT_GT(failed, 20);
}

// window_bound_holds finds a single row past the bound anywhere in a batch: A = tridiag(0.1, 1,
// 0.1) (|a| + |c| = 0.2|b|) and M = e_r e_rᵀ, every shift 0 but system k's −0.9, which leaves row
// r of system k a diagonal of 0.1 against 0.2 off it. False for (r, k) at the first, a middle and
// the last row and system (the check's grid takes the systems in several passes here), true with
// every shift 0. The window method then solves either batch accurately: the first after its own
// check (the fallback), the second also with the check assured.
TYPED_TEST(CudaTridiagTest, WindowBoundHoldsFindsOneRowPastIt) {
  using S = TypeParam;
  const index_t n = 1000, batch = 3000;
  for (index_t r : {index_t{0}, index_t{517}, n - 1})
    for (index_t k : {index_t{-1}, index_t{0}, index_t{1234}, batch - 1}) {
      SCOPED_TRACE("row " + std::to_string(r) + ", system " + std::to_string(k));
      Batch<S> t;
      t.n = n;
      t.batch = batch;
      t.A.diag.assign(n, S(1));
      t.A.off.assign(n - 1, S(0.1));
      t.M.diag.assign(n, S(0));
      t.M.diag[r] = S(1);
      t.M.off.assign(n - 1, S(0));
      t.shifts.assign(batch, S(0));
      if (k >= 0) t.shifts[k] = S(-0.9);
      const cuda::DeviceSymTridiagBuffer<S> A(t.A), M(t.M);
      const DeviceBuffer<S> shifts = upload(t.shifts);
      EXPECT_EQ(cuda::window_bound_holds<S>(nullptr, A.view(), M.view(), shifts.data(), batch),
                k < 0);
      if (r != 517 || k == 0) continue;  // the solves once per kind of batch
      testing::fill_explicit_from_shifted(t);
      t.d = pscr::testing::random_vector<S>(n * batch, 360 + k);
      auto configs = method_configs("window", cuda::Method::window, {16});
      if (k < 0) {
        cuda::Options assured{cuda::Method::window, 16};
        assured.window_bound = true;
        configs.push_back({"window assured", false, assured});
      }
      check_configs(t, Form::shifted, configs);
    }
}

// window_bound_holds where a row's diagonal vanishes between two shifts (the check of real
// shifts then tries that row at each shift): A = tridiag(0.1, 1, 0.1) but row 700's diagonal 0,
// M = e_700 e_700ᵀ, so that row 700 of system k has the diagonal s_k against 0.2 off it; shifts
// ±10 alternately pass, and one shift of 0.05 among them fails.
TYPED_TEST(CudaTridiagTest, WindowBoundHoldsWhereADiagonalVanishesBetweenShifts) {
  using S = TypeParam;
  const index_t n = 1000, batch = 2001;
  Batch<S> t;
  t.n = n;
  t.batch = batch;
  t.A.diag.assign(n, S(1));
  t.A.diag[700] = S(0);
  t.A.off.assign(n - 1, S(0.1));
  t.M.diag.assign(n, S(0));
  t.M.diag[700] = S(1);
  t.M.off.assign(n - 1, S(0));
  for (index_t k = 0; k < batch; ++k) t.shifts.push_back(S(k % 2 == 0 ? 10.0 : -10.0));
  const cuda::DeviceSymTridiagBuffer<S> A(t.A), M(t.M);
  for (index_t near_zero : {index_t{-1}, index_t{0}, index_t{1000}, batch - 1}) {
    SCOPED_TRACE("shift 0.05 at " + std::to_string(near_zero));
    std::vector<S> shifts = t.shifts;
    if (near_zero >= 0) shifts[near_zero] = S(0.05);
    const DeviceBuffer<S> d_shifts = upload(shifts);
    EXPECT_EQ(cuda::window_bound_holds<S>(nullptr, A.view(), M.view(), d_shifts.data(), batch),
              near_zero < 0);
  }
}

// Indefinite systems through the pivoting solver. Random general systems only up to n = 1023:
// their condition number grows exponentially with n, and x overflows long before n = 65537.
TYPED_TEST(CudaTridiagTest, PivotingIndefinite) {
  std::uint64_t seed = 400;
  for (index_t n : kSizes)
    for (index_t batch : batches_for(n)) {
      check_configs(testing::make_shifted<TypeParam>(n, batch, Kind::indefinite, seed++),
                    Form::shifted, {kPivoting});
      if (n <= 1023)
        check_configs(testing::make_general<TypeParam>(n, batch, Kind::indefinite, seed++),
                      Form::general, {kPivoting});
    }
}

// The batches of 10^5 systems of issue 5, small n.
TYPED_TEST(CudaTridiagTest, LargeBatch) {
  for (index_t n : {index_t{1}, index_t{3}, index_t{33}}) {
    const auto t = testing::make_shifted<TypeParam>(n, 100000, Kind::dominant, 500 + n);
    const auto ref = reference_solution(t, false);
    for (const Config& cfg : non_pivoting_configs()) {
      for (bool interleaved : {false, true}) {
        const BatchLayout l = testing::padded_layout(interleaved, n, t.batch, 1);
        bool padding_ok = false;
        const auto x = run_gpu(t, Form::shifted, cfg, l, l, false, padding_ok);
        EXPECT_TRUE(padding_ok) << cfg.name;
        double worst = 0;
        for (index_t k = 0; k < t.batch; ++k)
          worst = std::max(worst, testing::forward_error(x, ref, n, k));
        // Dominant systems, κ₁ ≤ 10: a few hundred eps.
        EXPECT_LE(worst, pscr::testing::tolerance<TypeParam>(2000))
            << cfg.name << ", n " << n << ", interleaved " << interleaved;
      }
    }
  }
}

// Batches beyond the resident blocks of the block method, whose blocks then take several systems
// each: real shifted systems of odd stride (n + 3 = 1003, n = 1023 in place) have the next
// system's d staged in shared memory while the current one is solved, x written over d in place
// while the next system is in flight, the last segment's copies zero-filled past n; even strides
// (1000 in place, 1026), complex and general systems load d directly. Complex K ≤ 4: the coarse
// rows and unknowns pass between warps through two named barriers, double-buffered by parity.
TYPED_TEST(CudaTridiagTest, BlockMethodStagesTheNextSystem) {
  const std::vector<Config> configs = method_configs("block", cuda::Method::block, {2, 4, 8, 16});
  check_both_forms<TypeParam>({1000, 1023}, 3000, configs, 600);
}

// Batches beyond the resident warps of the segment method's whole pass, whose warps then take
// several groups of systems each, the last group partly past the batch (30001 is odd): segments
// of width 32 / 16 / 8 / 4 / 2 lanes (n = 32, 64 and 127 at K = 2, 4, 8, 16), so that a warp
// solves 1 to 16 systems at once. Real shifted systems whose warp's rows are contiguous have the
// warp's next systems' d staged in shared memory while it solves the current ones: one system per
// warp (n = 127 at K = 4, the last lane's last row past n zero-filled; every stride of contiguous
// rows) or systems of width · K rows back to back (n = 32 and 64 in place, rows past the batch
// zero-filled); K = 2, the other layouts and forms load d directly.
TYPED_TEST(CudaTridiagTest, SegmentWholePassManySystemsPerWarp) {
  const std::vector<Config> configs =
      method_configs("segment", cuda::Method::segment, {2, 4, 8, 16});
  check_both_forms<TypeParam>({32, 64, 127}, 30001, configs, 630);
}

// Batches beyond the resident blocks of the columns method, whose blocks then take several units
// each, the last group of systems partly past the batch (odd batches): one segment (n = 64: 4
// chunks of K = 16, 8 of K = 8, 16 of K = 4; 30001 systems, 3751 groups of 8, beyond the 1056
// one-warp blocks of the complex K = 16 tiles on an H100 or H200, so that contiguous complex rows
// pass through both tiles in turn, in place too) and several (n = 1000: segments of 16 chunks
// real, 8 complex, so 64 or 32 rows at K = 4, 128 or 64 at K = 8 and 256 or 128 at K = 16, the
// last one partly identity rows; 3001 systems).
TYPED_TEST(CudaTridiagTest, ColumnsMethodManyUnitsPerBlock) {
  const std::vector<Config> configs = method_configs("columns", cuda::Method::columns, {4, 8, 16});
  check_both_forms<TypeParam>({64}, 30001, configs, 650);
  check_both_forms<TypeParam>({1000}, 3001, configs, 652);
}

// The segment method's reduce pass with one lane per (system, segment) unit (segment_lanes.cuh;
// complex systems substitute by lanes too, from the reduce pass's checkpoints), which shifted
// systems take where their rows are contiguous and 16-byte aligned, a warp's 32 units
// lie within two segments (batch ≥ 31, or 16) and the warps number at least 2 per SM (real; 1.5
// complex: 264 and 198 on the 132 SMs of an H100 or H200): n = 6000 with a batch of 801 (warps
// straddling two segments, the last warp partly past the units; at K = 16, 300 warps) and n =
// 140001 with a batch of 16 (the last segment partly past n). Real systems take it where the
// system stride is even (of the contiguous cases 6000 in place and 140004 padded; 6003 and
// 140001 take the other reduce pass), complex ones (16-byte rows, tiles of 8) at every stride.
TYPED_TEST(CudaTridiagTest, SegmentLanesPasses) {
  check_shifted_shapes<TypeParam>({{6000, 801}, {140001, 16}},
                                  method_configs("segment", cuda::Method::segment, {2, 4, 8, 16}),
                                  750);
}

// The columns method's passes with one lane per (system, segment) unit (segment_lanes.cuh: the
// reduce pass keeping the elimination's checkpoints, then the substitute pass walking each band's
// tiles backward from them), which shifted systems side by side take where the rows of d and x are
// 16-byte aligned (real: an even row stride, the interleaved cases here: 806 and 24; complex: any),
// the batch is at least 16 and the reduce pass's warps number at least 2 per SM (complex 1.5). Real
// segments of 16 chunks: 64, 128 and 256 rows at K = 4, 8 and 16 (tiles of 16 rows); complex
// segments of 64 chunks, 256, 512 and 1024 rows (tiles of 8 rows). n = 5950 with a batch of 801:
// streams of 32 systems, the last group of one system; real at K = 4 bands of two segments on an
// H100 or H200, the last band half past the 93 segments; the last segment partly past n.
// n = 140001 with a batch of 19: streams of 16 systems, two per warp, the second group of 3
// systems; real at K = 4 bands of two segments. The layouts whose rows are contiguous or strided
// take the segment method instead.
TYPED_TEST(CudaTridiagTest, ColumnsLanesPasses) {
  check_shifted_shapes<TypeParam>({{5950, 801}, {140001, 19}},
                                  method_configs("columns", cuda::Method::columns, {4, 8, 16}),
                                  770);
}

// The columns method's capped whole pass (real K = 16, complex K = 8) over batches that fill every
// SM with its widest blocks (columns_block_systems): real n = 300 in 32 chunks, blocks of 16
// systems (512 threads) where the batch has a block per SM (2200 systems: 138 blocks, the last
// one half full, on the 132 SMs of an H100 or H200), of 8 below that (500); complex blocks of at
// most 128 threads either way. Interleaved layouts, padded and in place; the contiguous ones take
// the segment method.
TYPED_TEST(CudaTridiagTest, ColumnsWideBlocks) {
  check_shifted_shapes<TypeParam>({{300, 2200}, {300, 500}},
                                  method_configs("columns", cuda::Method::columns, {8, 16}), 880);
}

// Real shifted systems of 513 to 1024 rows at K = 16 in one pass of two 32-chunk segments per
// system (columns_two_segments, which solve.cu takes for batches of up to 8 waves of blocks, 12
// where n ≥ 896): blocks of 8 systems where the batch fills every SM (1100 systems: 138 blocks on
// 132 SMs, the last half full), of 4 below (130, 7, 1); n = 513 (the second segment one row),
// 700, 1024 (both full); on an H100 or H200, 700 × 9000 beyond 8 waves (the two passes) and
// 960 × 9000 within 12 (the one pass, each block taking 8 or 9 units).
TYPED_TEST(CudaTridiagTest, ColumnsTwoSegments) {
  const auto columns = method_configs("columns", cuda::Method::columns, {16});
  for (index_t n : {index_t{513}, index_t{700}, index_t{1024}})
    check_shifted_shapes<TypeParam>({{n, 1100}, {n, 130}, {n, 7}, {n, 1}}, columns, 990 + n);
  check_shifted_shapes<TypeParam>({{700, 9000}, {960, 9000}}, columns, 2990);
}

// Batches beyond the resident warps of the sweep method, each warp then solving many systems in its
// arrays (rows past n stay zero from one system to the next): n = 33, 255, 300, 361, 417, 511,
// 600 and 700 with K = 8 asked (K = 8, 8, 10, 12, 14, 16, 20, 22) and, real, K = 16: the
// next system copied into the warp's second array, c′ and v in registers, SweepStaging::buffers,
// one instance per K, its rows past n zero in both arrays (at 33 lane 0 alone has a row), but
// complex K = 20 and 22 (in shared memory);
// padded strides. Systems of more than 768 rows take the cluster kernel, real ones asked for K = 16
// and 8: 1000 and 1023 with K = 16 (one block of 2 segment warps and slots) and 8 (one block of 4
// warps, one slot: the K = 8 instance has no other), 1025 with K = 16 (one block of 3 segment
// warps, the last segment one row) and 8 (one block of 5 warps, the last segment one row), 1281
// with K = 16 (one block of 3 segment warps) and 8 (one block of 6 warps), 2048 with K = 16 (2
// blocks of 2) and 8 (one block of 8), 4097 with K = 16 (clusters of 3 blocks of 3 segment warps,
// the last warp's segment one row) and 8192 (8 blocks of 2, each block running its segments for
// several systems at once: slots, one kernel instance) and with K = 8 of 3 blocks of 6 warps (the
// last segment identity rows) and 4 blocks of 8 (one slot, the other instance), 10000 with K = 16
// (5 blocks of 4 segment warps, 3 slots: blocks of 12 warps; the cluster kernel's K = 8 takes at
// most 8192 rows, so both real configurations run K = 16 there, and complex ones, whose cluster
// kernel is K = 8's, fall back to the segment method), each cluster solving several systems with
// the next one's d copied in under the current one. Complex ones take K = 8 (the shapes of real
// K = 8: 1023 odd stride in place) but where K = 16 is asked for up to 1024 rows (1000, 1023: the
// InBlock instance, one block of two segment warps, four slots), guarded, and unguarded where
// declared dominant (these systems are), exchanging coarse rows of 8 pieces of 16 bytes per
// segment or (InBlock) sharing their lane pairs' rows in the block (one buffer per slot, written
// again for each system).
TYPED_TEST(CudaTridiagTest, SweepMethodManySystemsPerWarp) {
  std::vector<Config> configs = {{"sweep K=8", false, {cuda::Method::sweep, 8}},
                                 {"sweep K=16", false, {cuda::Method::sweep, 16}}};
  if constexpr (is_complex_v<TypeParam>)
    for (int k : {8, 16})
      configs.push_back({"sweep K=" + std::to_string(k) + " dominant",
                         false,
                         {cuda::Method::sweep, k, cuda::Staging::automatic, true}});
  std::uint64_t seed = 700;
  for (index_t n :
       {index_t{33}, index_t{255}, index_t{300}, index_t{361}, index_t{417}, index_t{511},
        index_t{600}, index_t{700}, index_t{1000}, index_t{1023}, index_t{1025}, index_t{1281},
        index_t{2048}, index_t{4097}, index_t{8192}, index_t{10000}})
    check_configs(
        testing::make_shifted<TypeParam>(n, n > 2048 ? 700 : 3000, Kind::dominant, seed++),
        Form::shifted, configs);
}

// The case of test_reference.cpp where Thomas fails (tiny diagonal, well-conditioned): the GPU
// Thomas fails the same way, the GPU pivoting solver meets a 1e-10 relative residual.
TYPED_TEST(CudaTridiagTest, PivotingSucceedsWhereThomasLosesAccuracy) {
  using Scalar = TypeParam;
  Batch<Scalar> t = testing::tiny_diagonal_batch<Scalar>();
  const index_t n = t.n, batch = t.batch;
  const BatchLayout l = BatchLayout::contiguous(n);
  for (Form form : {Form::shifted, Form::general}) {
    bool padding_ok = false;
    const auto x_thomas = run_gpu(t, form, non_pivoting_configs()[0], l, l, false, padding_ok);
    const auto x_pivot = run_gpu(t, form, kPivoting, l, l, false, padding_ok);
    for (index_t k = 0; k < batch; ++k) {
      EXPECT_GT(testing::relative_residual(t, x_thomas, k), 1e-6) << "Thomas did not fail";
      EXPECT_LE(testing::relative_residual(t, x_pivot, k), 1e-10);
    }
  }
}

/// The shifts of a HelmholtzPencil batch whose relative residual is above 1e-10 (or NaN) in the
/// GPU solution x of `cfg` (run_gpu, layout l for d and x, the shifted form or the general one of
/// the same systems), and the worst; printed with `label`.
struct Inaccurate {
  int count = 0;
  double worst = 0;
  bool padding_ok = false;
};
Inaccurate inaccurate_shifts(const Batch<testing::HelmholtzPencil::S>& t, const Config& cfg,
                             BatchLayout l, const std::string& label, Form form = Form::shifted) {
  Inaccurate r;
  const auto x = run_gpu(t, form, cfg, l, l, false, r.padding_ok);
  for (index_t k = 0; k < t.batch; ++k) {
    const double residual = testing::relative_residual(t, x, k);
    r.worst = std::isnan(residual) ? HUGE_VAL : std::max(r.worst, residual);
    if (!(residual <= 1e-10)) ++r.count;
  }
  std::printf("%s: %d of %lld shifts above 1e-10, worst %.2e\n", label.c_str(), r.count,
              static_cast<long long>(t.batch), r.worst);
  return r;
}

// Complex indefinite Helmholtz systems (testing::HelmholtzPencil: 4000 real shifts across the
// spectrum, no damping), the problems where the CPU emulation found the sweep method's reduced
// solve losing accuracy (test_cuda_emulation.cu, EmulationHelmholtz.SweepWithReducedRowsInOrder)
// and two longer ones (GuardedSweepClusterMeetsTheResidualWhereTheTreeFails). The pivoting solver
// meets a 1e-10 relative residual at every shift; the sweep method declared dominant (one warp of
// K = (n + 1)/32 rows per lane up to 768 rows, the cluster kernel of K = 8 beyond, the warp's
// cyclic reduction and PCR on their reduced rows) does not at some. Not declared dominant, the
// sweep method guards its reduced solves and solves the flagged systems' reduced rows again in
// order: one warp (n = 511) 1e-10 at every shift; the cluster kernel (n = 1023 to 8191) at all but
// at most one shift per problem, bounded here at 1e-8: the emulation found one shift of 38000 at
// 1.9e-9 (n = 2047), where the reduced rows solved in order fail as well (a segment's block of 256
// rows near singular, which only pivoting avoids); on an H100 0 of 16000. With K = 16 asked for,
// n = 1023 runs the cluster kernel's InBlock instance (its guarded solve of the system's 128
// reduced rows: on the emulation 2 of 80000 shifts above 1e-10, at most 1.22e-10), bounded as
// the cluster kernel; the longer problems run K = 8 then. The table's
// configuration for complex systems not declared dominant (at these shapes the block and segment
// methods) stays near 1e-10 as well: bounded at 1e-9 (an H100, the table before the guarded
// sweep: 1 shift of the 12000 above 1e-10, n = 511, 1.6e-10; since, 0 of 20000).
TEST(CudaTridiagHelmholtz, PivotingAndTheGuardedSweepSolveIndefiniteShifts) {
  if (pscr::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  using S = testing::HelmholtzPencil::S;
  const int count = 4000;
  const Config sweep_dominant{
      "sweep declared dominant", false, {cuda::Method::sweep, 0, cuda::Staging::automatic, true}};
  const Config sweep_guarded{"sweep (guarded)", false, {cuda::Method::sweep, 0}};
  const Config sweep_guarded_wide{"sweep K=16 (guarded)", false, {cuda::Method::sweep, 16}};
  int tree_inaccurate = 0;
  for (const auto& [n, seed] :
       {std::pair<index_t, int>{511, 5}, {1023, 3}, {2047, 7}, {4095, 3}, {8191, 5}}) {
    const testing::HelmholtzPencil pencil(n, seed);
    std::vector<S> shifts(count);
    for (int j = 0; j < count; ++j) shifts[j] = pencil.shift(j, count);
    const Batch<S> t = pencil.batch(shifts);
    const BatchLayout l = BatchLayout::contiguous(n);
    for (const Config& cfg : {kPivoting, Config{"automatic", false, {}}, sweep_guarded,
                              sweep_guarded_wide, sweep_dominant}) {
      const std::string label =
          cfg.name + ", n " + std::to_string(n) + ", seed " + std::to_string(seed);
      const Inaccurate r = inaccurate_shifts(t, cfg, l, label);
      SCOPED_TRACE(label);
      EXPECT_TRUE(r.padding_ok);
      const bool one_warp = n <= 768;  // the sweep method's one warp per system
      const bool guarded = cfg.name == sweep_guarded.name || cfg.name == sweep_guarded_wide.name;
      if (cfg.pivoting || (guarded && one_warp)) {
        EXPECT_EQ(r.count, 0) << "worst " << r.worst;
      } else if (cfg.name == sweep_dominant.name) {
        tree_inaccurate += r.count;
      } else if (guarded) {
        EXPECT_LE(r.count, 1);
        EXPECT_LE(r.worst, 1e-8);
      } else {
        EXPECT_LE(r.worst, 1e-9);
      }
    }
  }
  EXPECT_GE(tree_inaccurate, 1) << "no shift where the dominant sweep loses accuracy";
}

// The segment and columns methods guard the solve of a segment's reduced rows for complex systems
// beyond 4 rows per lane (guarded_reduced_solve), and the selection table gives them such systems
// not declared dominant where one segment covers them (kMaxGuardedLaneRows): the problem where the
// CPU emulation found their tree failing (n = 511, 16 rows per lane:
// EmulationHelmholtz.GuardedSegmentMeetsTheResidual...) and the table's other one-segment shapes
// (n = 127 at K = 16, 8 lanes; n = 255 at K = 8), shifted and general form, contiguous (segment)
// and interleaved (columns), and whatever the table runs on the interleaved batch: every shift
// meets 1e-10.
TEST(CudaTridiagHelmholtz, GuardedSegmentsSolveIndefiniteShifts) {
  if (pscr::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  using S = testing::HelmholtzPencil::S;
  const int count = 4000;
  for (const auto& [n, K] : {std::pair<index_t, int>{127, 16}, {255, 8}, {511, 16}}) {
    const testing::HelmholtzPencil pencil(n, 5);
    std::vector<S> shifts(count);
    for (int j = 0; j < count; ++j) shifts[j] = pencil.shift(j, count);
    const Batch<S> t = pencil.batch(shifts);
    const std::string k = ", K " + std::to_string(K) + ", n " + std::to_string(n);
    for (const auto& [cfg, l] : {std::pair{Config{"segment" + k, false, {cuda::Method::segment, K}},
                                           BatchLayout::contiguous(n)},
                                 std::pair{Config{"columns" + k, false, {cuda::Method::columns, K}},
                                           BatchLayout::interleaved(count)},
                                 std::pair{Config{"automatic, n " + std::to_string(n), false, {}},
                                           BatchLayout::interleaved(count)}})
      for (Form form : {Form::shifted, Form::general}) {
        const std::string label = cfg.name + (form == Form::general ? ", general" : ", shifted");
        const Inaccurate r = inaccurate_shifts(t, cfg, l, label, form);
        SCOPED_TRACE(label);
        EXPECT_TRUE(r.padding_ok);
        EXPECT_EQ(r.count, 0) << "worst " << r.worst;
      }
  }
}

TYPED_TEST(CudaTridiagTest, BadOptionsThrowInputError) {
  using Scalar = TypeParam;
  EXPECT_THROW(cuda::workspace_size<Scalar>(100, 4, {cuda::Method::partition, 3}), InputError);
  EXPECT_THROW(cuda::workspace_size<Scalar>(100, 4, {cuda::Method::partition, 2}), InputError);
  EXPECT_THROW(cuda::workspace_size<Scalar>(100, 4, {cuda::Method::warp, 32}), InputError);
  EXPECT_THROW(cuda::workspace_size<Scalar>(100, 4, {cuda::Method::sweep, 66}), InputError);
  const index_t n = 100, batch = 4;
  const auto t = testing::make_shifted<Scalar>(n, batch, Kind::dominant, 9);
  const cuda::DeviceSymTridiagBuffer<Scalar> A(t.A), M(t.M);
  auto d_shifts = upload(t.shifts);
  auto d_d = upload(t.d);
  const BatchLayout l = BatchLayout::contiguous(n);
  const cuda::Options thomas{cuda::Method::thomas, 0};
  DeviceBuffer<Scalar> d_ws(n * batch);
  EXPECT_THROW(cuda::solve_shifted(nullptr, A.view(), M.view(), d_shifts.data(), batch, d_d.data(),
                                   l, d_d.data(), l, d_ws.data(), n * batch - 1, thomas),
               InputError);  // workspace too small
  EXPECT_THROW(cuda::solve_shifted(nullptr, A.view(), M.view(), d_shifts.data(), 0, d_d.data(), l,
                                   d_d.data(), l, d_ws.data(), n * batch, thomas),
               InputError);  // empty batch
}

// What a call runs (resolved_options, with the device's selection table): the segment and block
// methods take K from the table's nearest entry when it is either (PSCR's coarse solves ask for
// the segment method where the table has block entries), else 8, or 4 complex; a block method
// that does not apply runs the segment method, and both run the columns method on interleaved
// layouts, which runs the segment method on contiguous ones.
TYPED_TEST(CudaTridiagTest, ResolvedOptionsFollowTheTable) {
  using Scalar = TypeParam;
  const bool complex = is_complex_v<Scalar>;
  auto resolved = [](index_t n, index_t batch, BatchLayout l, bool general, cuda::Options o) {
    return cuda::resolved_options<Scalar>(n, batch, l, general, o);
  };
  const BatchLayout c1024 = BatchLayout::contiguous(1024);
  // Measured shapes: shifted 1024 × 2^14 takes the device table's entry, guarded or, declared
  // dominant, the dominant entry, with the entry's K: real systems the sweep method (its cluster
  // kernel, K = 16: the entry leaves K open), complex ones the entry's method (the H200's: the
  // segment method, K = 4 guarded, 16 dominant); general 361 × 2^16 the block method (K = 4),
  // which a request for the segment method keeps.
  for (bool dominant : {false, true}) {
    SCOPED_TRACE(dominant ? "declared dominant" : "guarded");
    const cuda::Options entry = cuda::select_method(cuda::current_selection_gpu(), 1024, 16384,
                                                    false, complex, false, dominant);
    cuda::Options declared;
    declared.dominant = dominant;
    const cuda::Options table = resolved(1024, 16384, c1024, false, declared);
    EXPECT_EQ(table.method, entry.method);
    if (!complex) EXPECT_EQ(table.method, cuda::Method::sweep);
    EXPECT_EQ(table.rows_per_thread,
              entry.method == cuda::Method::sweep && entry.rows_per_thread == 0
                  ? (complex ? 8 : 16)
                  : entry.rows_per_thread);
  }
  const cuda::Options coarse =
      resolved(361, 65536, BatchLayout::contiguous(361), true, {cuda::Method::segment});
  EXPECT_EQ(coarse.method, cuda::Method::segment);
  EXPECT_EQ(coarse.rows_per_thread, 4);
  // A partition method asked for at shifted 512 × 2^15 interleaved takes the table's M where
  // its entry is the partition method, else 8; complex systems at most 4 rows per thread
  // (bench/tridiag_select.py), as the segment method's K.
  const cuda::Options partition =
      resolved(512, 32768, BatchLayout::interleaved(32768), false, {cuda::Method::partition});
  EXPECT_EQ(partition.method, cuda::Method::partition);
  if (complex) EXPECT_LE(partition.rows_per_thread, 4);
  // Complex shifted 512 × 2^15 contiguous: the sweep method (16 rows per lane), whose reduced solve
  // is guarded, not the warp method (16 rows per lane, unguarded: 3D Helmholtz 511³ lost two orders
  // of accuracy with it).
  if (complex) {
    const cuda::Options entry = resolved(512, 32768, BatchLayout::contiguous(512), false, {});
    EXPECT_EQ(entry.method, cuda::Method::sweep);
    EXPECT_EQ(entry.rows_per_thread, 16);
  }
  // Declared dominant, complex systems may take more rows per lane: the sweep method at 512 ×
  // 2^15 contiguous (16 rows per lane), the dominant option kept, 8 rows per partition where the
  // table's entry is not the partition method.
  cuda::Options dominant;
  dominant.dominant = true;
  const cuda::Options swept = resolved(512, 32768, BatchLayout::contiguous(512), false, dominant);
  EXPECT_TRUE(swept.dominant);
  if (complex) EXPECT_EQ(swept.method, cuda::Method::sweep);
  dominant.method = cuda::Method::partition;
  EXPECT_EQ(resolved(8192, 2048, BatchLayout::contiguous(8192), false, dominant).rows_per_thread,
            8);
  // One segment (64 rows, K = 8): the segment method.
  EXPECT_EQ(resolved(64, 262144, BatchLayout::contiguous(64), false, {cuda::Method::block}).method,
            cuda::Method::segment);
  const cuda::Options explicit_k = resolved(1024, 16384, c1024, false, {cuda::Method::block, 16});
  EXPECT_EQ(explicit_k.method, cuda::Method::block);
  EXPECT_EQ(explicit_k.rows_per_thread, 16);
  const cuda::Options columns =
      resolved(1024, 16384, BatchLayout::interleaved(16384), false, {cuda::Method::block, 16});
  EXPECT_EQ(columns.method, cuda::Method::columns);
  EXPECT_EQ(columns.rows_per_thread, 16);
  const cuda::Options segment = resolved(1024, 16384, c1024, false, {cuda::Method::columns, 2});
  EXPECT_EQ(segment.method, cuda::Method::segment);
  EXPECT_EQ(segment.rows_per_thread, 2);
  // On contiguous rows, the columns method runs one segment of the complex shifted form (through
  // tiles); real systems and the general form the segment method.
  const BatchLayout c64 = BatchLayout::contiguous(64);
  EXPECT_EQ(resolved(64, 1000, c64, false, {cuda::Method::columns, 8}).method,
            is_complex_v<Scalar> ? cuda::Method::columns : cuda::Method::segment);
  EXPECT_EQ(resolved(64, 1000, c64, true, {cuda::Method::columns, 8}).method,
            cuda::Method::segment);
  EXPECT_EQ(resolved(64, 1000, BatchLayout{131, 2}, false, {cuda::Method::columns, 8}).method,
            cuda::Method::segment);  // rows every other element: no tiles
  // The sweep method: one warp's K covers n (even, at least 4); the general form runs the block
  // method, interleaved layouts (through the block method) the columns method.
  const cuda::Options sweep =
      resolved(700, 100, BatchLayout::contiguous(700), false, {cuda::Method::sweep});
  EXPECT_EQ(sweep.method, cuda::Method::sweep);
  EXPECT_EQ(sweep.rows_per_thread, 22);
  EXPECT_EQ(
      resolved(33, 100, BatchLayout::contiguous(33), false, {cuda::Method::sweep}).rows_per_thread,
      4);
  EXPECT_EQ(resolved(1000, 100, BatchLayout::contiguous(1000), true, {cuda::Method::sweep}).method,
            cuda::Method::block);
  EXPECT_EQ(resolved(1000, 100, BatchLayout::interleaved(100), false, {cuda::Method::sweep}).method,
            cuda::Method::columns);
  // Real systems of 769 to 16384 rows take the cluster kernel (K = 8 where 8 covers n and is asked
  // for, or is left open and pads the systems to a tenth or more fewer rows than 16 in a batch of
  // fewer than 2^23 rows: 769, 1025, 2049, not 4097; else 16); complex ones of 769 to 8192 rows
  // with K = 8, but 16 where it is asked for up to 1024 rows (the InBlock instance), longer ones
  // the block method (or the segment method beyond its 16 segments).
  auto padded = [](index_t n, index_t rows) { return (n + rows - 1) / rows * rows; };
  for (index_t n : {index_t{769}, index_t{1025}, index_t{2048}, index_t{2049}, index_t{4097},
                    index_t{8192}, index_t{16384}})
    for (index_t batch : {index_t{100}, (index_t{1} << 23) / n, (index_t{1} << 23) / n + 1})
      for (int asked : {0, 4, 8, 16}) {
        const cuda::Options o =
            resolved(n, batch, BatchLayout::contiguous(n), false, {cuda::Method::sweep, asked});
        SCOPED_TRACE(::testing::Message() << "n " << n << ", batch " << batch << ", K " << asked);
        if (complex && n <= 8192) {
          EXPECT_EQ(o.method, cuda::Method::sweep);
          EXPECT_EQ(o.rows_per_thread, asked > 8 && n <= 1024 ? 16 : 8);
        } else if (complex) {
          EXPECT_TRUE(o.method == cuda::Method::block || o.method == cuda::Method::segment);
        } else {
          EXPECT_EQ(o.method, cuda::Method::sweep);
          const bool eight = asked == 0
                                 ? n * batch < (index_t{1} << 23) &&
                                       10 * (padded(n, 512) - padded(n, 256)) >= padded(n, 512)
                                 : asked <= 8;
          EXPECT_EQ(o.rows_per_thread, eight && n <= 8192 ? 8 : 16);
        }
      }
  // The shapes measured for that rule (solve.cu, sweep_cluster_rows): K = 8 at 1100² and 2300²,
  // 16 at 2048², 1536², 4097 × 700 and 1100 × 15252.
  if (!complex)
    for (const auto& [n, batch, K] :
         {std::tuple{1100, 1100, 8}, std::tuple{2300, 2300, 8}, std::tuple{2048, 2048, 16},
          std::tuple{1536, 1536, 16}, std::tuple{4097, 700, 16}, std::tuple{1100, 15252, 16}})
      EXPECT_EQ(resolved(n, batch, BatchLayout::contiguous(n), false, {cuda::Method::sweep})
                    .rows_per_thread,
                K)
          << n << " x " << batch;
  EXPECT_NE(
      resolved(16385, 100, BatchLayout::contiguous(16385), false, {cuda::Method::sweep}).method,
      cuda::Method::sweep);
  // The window method: shifted systems of more than 512 rows (K = 16), either layout; the
  // general form takes the sweep method's rules.
  for (index_t n : {513, 8192, 65537}) {
    for (const BatchLayout& l : {BatchLayout::contiguous(n), BatchLayout::interleaved(100)}) {
      const cuda::Options w = resolved(n, 100, l, false, {cuda::Method::window});
      EXPECT_EQ(w.method, cuda::Method::window);
      EXPECT_EQ(w.rows_per_thread, 16);
    }
    EXPECT_NE(resolved(n, 100, BatchLayout::contiguous(n), true, {cuda::Method::window}).method,
              cuda::Method::window);
  }
  EXPECT_EQ(resolved(512, 100, BatchLayout::contiguous(512), false, {cuda::Method::window}).method,
            cuda::Method::sweep);
  // Assured (Options::window_bound), `automatic` follows the table's window flags and the
  // choice is dominant.
  for (index_t n : {1000, 65536, 1 << 20}) {
    cuda::Options assured;
    assured.window_bound = true;
    const index_t batch = (index_t{1} << 24) / n;
    const cuda::Options o = resolved(n, batch, BatchLayout::contiguous(n), false, assured);
    EXPECT_TRUE(o.dominant);
    EXPECT_TRUE(o.window_bound);
    EXPECT_EQ(o.method == cuda::Method::window,
              cuda::select_method(cuda::current_selection_gpu(), n, batch, false, complex, false,
                                  true, true)
                      .method == cuda::Method::window)
        << "n " << n;
  }
  // What resolved_options reports is a valid request again and resolves to itself: the sweep's
  // K (12 at n = 361, 22 at n = 700) included, which check_options once refused.
  for (index_t n : {33, 361, 700, 769, 1000, 1025, 2048, 2049, 8192, 16384})
    for (bool general : {false, true})
      for (const cuda::Options& asked :
           {cuda::Options{}, cuda::Options{cuda::Method::sweep}, cuda::Options{cuda::Method::warp},
            cuda::Options{cuda::Method::block}, cuda::Options{cuda::Method::partition},
            cuda::Options{cuda::Method::columns}, cuda::Options{cuda::Method::tiled_pcr},
            cuda::Options{cuda::Method::window}})
        for (bool interleaved : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "n " << n << (general ? " general" : " shifted")
                                            << (interleaved ? " interleaved" : "") << ", method "
                                            << static_cast<int>(asked.method));
          const BatchLayout l =
              interleaved ? BatchLayout::interleaved(100) : BatchLayout::contiguous(n);
          const cuda::Options once = resolved(n, 100, l, general, asked);
          const cuda::Options twice = resolved(n, 100, l, general, once);
          EXPECT_EQ(twice.method, once.method);
          EXPECT_EQ(twice.rows_per_thread, once.rows_per_thread);
          EXPECT_EQ(twice.staging, once.staging);
        }
  // Tiled PCR: 4 steps unless asked for others, fewer where 2^k reaches n first (3 rows: 2
  // steps), on any layout.
  for (bool interleaved : {false, true}) {
    const BatchLayout l =
        interleaved ? BatchLayout::interleaved(100) : BatchLayout::contiguous(65536);
    const cuda::Options pcr = resolved(65536, 100, l, false, {cuda::Method::tiled_pcr});
    EXPECT_EQ(pcr.method, cuda::Method::tiled_pcr);
    EXPECT_EQ(pcr.rows_per_thread, 4);
    EXPECT_EQ(resolved(65536, 100, l, true, {cuda::Method::tiled_pcr, 7}).rows_per_thread, 7);
  }
  EXPECT_EQ(resolved(3, 100, BatchLayout::contiguous(3), false, {cuda::Method::tiled_pcr})
                .rows_per_thread,
            2);
  // A sweep K where the sweep does not apply (general form) is not the block method's K: the
  // block method takes its own (12 is none of 2, 4, 8, 16).
  const cuda::Options general_sweep =
      resolved(361, 100, BatchLayout::contiguous(361), true, {cuda::Method::sweep, 12});
  EXPECT_EQ(general_sweep.method, cuda::Method::block);
  EXPECT_TRUE(general_sweep.rows_per_thread == 2 || general_sweep.rows_per_thread == 4 ||
              general_sweep.rows_per_thread == 8 || general_sweep.rows_per_thread == 16)
      << general_sweep.rows_per_thread;
}

}  // namespace
}  // namespace pscr::tridiag

// Benchmark of the GPU tridiagonal solvers (issue 5): every method on the shapes of the issue
// (warp only where n ≤ 512), real and complex, shifted and general form, contiguous and
// interleaved layouts, against the device-to-device copy bandwidth measured in the same run (the
// fastest of three medians) and, for the general form, cuSPARSE gtsv2StridedBatch and
// gtsvInterleavedBatch (algorithms 0, 1, 2) on the same data.
//
// Usage: tridiag_bench OUTPUT.csv [--reps R] [--shapes n:batch,n:batch,...] [--methods M,M,...]
//                      [--layouts contiguous|interleaved] [--scalars real|complex]
//                      [--forms shifted|general] [--rows K,K,...]
//                      [--systems dominant|helmholtz|poisson]
// --methods keeps the named methods only (thomas, partition, warp, segment, block, sweep,
// columns, tiled_pcr, window, automatic, automatic_dominant, pivoting, cusparse; default all;
// automatic_dominant: the complex systems, which are diagonally dominant, solved with
// Options::dominant), --layouts one layout, --scalars one scalar type, --forms one form (default
// both of each), --rows the configurations of those rows per thread (partition M, segment, block
// and columns K, tiled_pcr's PCR steps k, which the rows_per_thread column holds for it: 2, 4, 8,
// 16; methods whose K follows from n always run): for A/B runs of one kernel (bench/ab.sh), which
// then take seconds instead of minutes. --systems: the shifted systems A + s_k M, dominant
// (default: random A, M, s with diagonals well above the off-diagonals), helmholtz (complex
// only, with --scalars complex: the indefinite systems of a 2D Helmholtz solve,
// problems::HelmholtzPencil with the shifts PSCR's top level forms, eigen_shifts, on which
// guarded configurations do extra work where they find growth) or poisson (real only, with
// --scalars real: the systems of a 2D Poisson solve on a uniform square grid, A the second
// difference, M the identity, the shifts the other dimension's eigenvalues, none within the window
// method's bound, which then pays its check and its fallback); the CSV does not record which, so
// name its file for it. The copy is always timed;
// cuSPARSE solves the general form only. Exit codes: 0 written, 1 failure (no GPU, a CUDA or
// cuSPARSE error, an unwritable output), 2 bad arguments (checked before anything is written).
// Times: CUDA events around each solve, median (and minimum) of R ≥ 10 runs (default 20) after
// a warm-up, bounded so that the whole default run takes about a minute or two: a method whose
// single solve takes more than 30 copy times of the shape, in the faster of two runs (the first
// launch from a module loads it), is recorded from those two with the note "skipped: ..." (and
// not run again on the other form of that layout: a method can be slow on one layout only, as
// p-Thomas on contiguous systems), one above 5 copy
// times gets 10 runs (time_runs). GB/s on the floor: 2·n·batch·sizeof(scalar) bytes (read d,
// write x) per solve; the copy moves n·batch scalars (read + write). max_residual: largest
// ‖T x − d‖/‖d‖ over 8 sample systems (0 where skipped). flops: nominal counts per row (see
// nominal_flops), for GFLOP/s only. reps: runs behind the median. The copy itself is a row
// with method "copy".
#include <cuComplex.h>
#include <cusparse.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cli.hpp"
#include "bench/goal_shapes.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/error.hpp"
#include "common/scalar.hpp"
#include "problems/generate.hpp"
#include "tridiag/cuda/selection.hpp"
#include "tridiag/cuda/solve.hpp"
#include "tridiag/reference/solve.hpp"

#define PSCR_CUSPARSE_CHECK(call)                                                                \
  do {                                                                                           \
    const cusparseStatus_t pscr_st_ = (call);                                                    \
    if (pscr_st_ != CUSPARSE_STATUS_SUCCESS)                                                     \
      ::pscr::detail::throw_library_error("cuSPARSE", #call, static_cast<long>(pscr_st_),        \
                                          cusparseGetErrorString(pscr_st_), __FILE__, __LINE__); \
  } while (0)

namespace {

using pscr::index_t;
using pscr::cuda::DeviceBuffer;
using pscr::cuda::Event;
using pscr::cuda::Stream;
namespace tc = pscr::tridiag::cuda;
using pscr::tridiag::BatchLayout;

using pscr::bench::parse_positive;
using pscr::bench::Shape;

/// What a run measures (--methods, --layouts, --scalars, --forms, --rows): empty = everything.
struct Selection {
  std::vector<std::string> methods, layouts, scalars, forms, rows;
  std::string systems = "dominant";  ///< --systems: dominant, helmholtz or poisson
  bool has_method(const std::string& m) const { return contains(methods, m); }
  bool has_layout(const std::string& l) const { return contains(layouts, l); }
  bool has_scalar(const std::string& s) const { return contains(scalars, s); }
  bool has_form(const std::string& f) const { return contains(forms, f); }
  /// Rows per thread 0 (the method's own K) always.
  bool has_rows(int k) const { return k == 0 || contains(rows, std::to_string(k)); }

 private:
  static bool contains(const std::vector<std::string>& v, const std::string& s) {
    return v.empty() || std::find(v.begin(), v.end(), s) != v.end();
  }
};

/// The shapes of issue 5 (2^24 rows each), then the odd sizes of the 3D PSCR benchmark's level-3
/// systems (n3 = 127, 255, 361, 511, about n3^2 systems each), so that the selection table has
/// entries where PSCR needs them, and 2048 and 4096 rows (2^24 rows each), where the 2D PSCR
/// benchmark's systems took the nearest entry, 8192 × 2^11: once the sweep method's cluster kernel
/// won there, 2048-row systems took the sweep method's one warp of K = 64 (2D Poisson 2048²,
/// separate stages, H100: 1.246 → 1.357 ms). Last the 2D PSCR benchmark's own shapes, n systems of
/// n = 2^k − 1 rows (255 to 4095), whose few systems favour other configurations than 2^24 rows
/// do: complex 511 × 511 took 0.0341 ms with its nearest entry's configuration then (1024 × 2^14:
/// the segment method, K = 4) against 0.0187 with the sweep method, 1023 × 1023 0.0732 against
/// the block method's 0.0456 (H100). Then 33 and 100 rows in batches of about 2^24 rows, short
/// systems in large batches between the 64- and 127-row entries, where complex systems run the
/// columns method through tiles 14–17% faster than the segment method that the nearest entries gave
/// them (dominant 100 × 167772 and 33 × 500000, H100). Last 180 × 32400, the 3D PSCR benchmark's
/// level-3 batch at 180³, which lay between the 127- and 255-row entries: there the sweep method
/// (real) and the tiled columns method (complex) ran 7% and 20% faster than the nearest entries'
/// configurations, and PSCR 3D Poisson and Helmholtz 180³ took 4% and 7% less time. Other shapes
/// between the entries where `automatic` ran 13–58% behind (48, 90, 700 and 3000 rows, and the
/// smaller PSCR shapes measured themselves) were not added: their entries took the PSCR
/// benchmark's small 2D and 3D problems, which ran up to 43% slower with them (H100;
/// docs/tridiag-performance.md).
std::vector<Shape> default_shapes() {
  std::vector<Shape> shapes(std::begin(pscr::bench::kGoalShapes),
                            std::end(pscr::bench::kGoalShapes));
  shapes.insert(shapes.end(), {{127, 1 << 14},
                               {255, 1 << 16},
                               {361, 1 << 16},
                               {511, 1 << 16},
                               {2048, 1 << 13},
                               {4096, 1 << 12},
                               {255, 255},
                               {511, 511},
                               {1023, 1023},
                               {2047, 2047},
                               {4095, 4095},
                               {33, 508400},
                               {100, 167772},
                               {180, 32400}});
  return shapes;
}

struct Timing {
  double median_ms = 0, min_ms = 0;
  int reps = 0;
  std::string note;  ///< why the method was not timed in full ("skipped: ..."), else empty
};

/// A single solve longer than this many copy times is not repeated (its row says "skipped");
/// one longer than kFewRepsFactor copy times gets only kFewReps repetitions.
constexpr double kSkipFactor = 30;
constexpr double kFewRepsFactor = 5;
constexpr int kFewReps = 10;

/// One timed run of `run` (after `prepare`), in ms.
double time_once(cudaStream_t stream, const std::function<void()>& run,
                 const std::function<void()>& prepare) {
  Event start, stop;
  prepare();
  start.record(stream);
  run();
  stop.record(stream);
  stop.synchronize();
  return stop.elapsed_ms_since(start);
}

/// Median and minimum of timed runs of `run`; `prepare` runs before each (untimed, e.g. restoring
/// inputs that the solver overwrites). Bounded: a first timed run (which also warms up) decides.
/// Longer than kSkipFactor·copy_ms: recorded as skipped if one more run is too (the first may
/// include lazy module loading: 53–83 ms on an H100 for the first configuration that --methods
/// left, against a 2.7 ms bound). Longer than kFewRepsFactor·copy_ms: kFewReps runs. Else `reps`
/// runs after one more warm-up.
Timing time_runs(
    cudaStream_t stream, int reps, double copy_ms, const std::function<void()>& run,
    const std::function<void()>& prepare = [] {}) {
  double first = time_once(stream, run, prepare);
  if (copy_ms > 0 && first > kSkipFactor * copy_ms) {
    first = std::min(first, time_once(stream, run, prepare));
    if (first > kSkipFactor * copy_ms) {
      std::ostringstream why;
      why << "skipped: one solve " << first << " ms > " << kSkipFactor << "x copy";
      return {first, first, 2, why.str()};
    }
  }
  if (copy_ms > 0 && first > kFewRepsFactor * copy_ms)
    reps = kFewReps;
  else
    time_once(stream, run, prepare);
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) ms.push_back(time_once(stream, run, prepare));
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), reps, ""};
}

template <class Scalar>
Scalar random_scalar(std::mt19937_64& gen, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  if constexpr (pscr::is_complex_v<Scalar>) {
    const double re = u(gen);
    return Scalar(re, 0.25 * u(gen));
  } else {
    return u(gen);
  }
}

/// Nominal flops per row (real arithmetic; ×4 for complex, roughly): Thomas 8 (+4 to form the
/// shifted row), partition ≈ 3 sweeps of Thomas, warp ≈ 2 (elimination with a fill-in column,
/// then substitution), pivoting ≈ 2 Thomas, tiled PCR 14 per PCR step (`steps`: pcr_combine and
/// its unit row) + 13 (the first unit row, Thomas on unit rows). Only for GFLOP/s.
double nominal_flops(const std::string& method, int steps, bool shifted, bool complex) {
  double f = 8;
  if (method.rfind("partition", 0) == 0 || method.rfind("automatic", 0) == 0) f = 24;
  if (method == "pivoting" || method == "warp" || method == "sweep") f = 16;
  if (method == "tiled_pcr") f = 13 + 14 * steps;
  if (shifted) f += 4;
  return complex ? 4 * f : f;
}

/// Host copy of the problem (contiguous, system k at k·n) and its device copies in both layouts.
template <class Scalar>
struct Problem {
  index_t n, batch;
  std::vector<Scalar> a, b, c, d;  // contiguous; a(k,0) = c(k,n−1) = 0
  pscr::SymTridiag<Scalar> A, M;
  std::vector<Scalar> shifts;
};

/// Rows of the other dimension's pencil whose eigenvalues give the Helmholtz systems' shifts:
/// the batch's, up to this many (its eigenvalues then repeat), so that the 2D shapes (batch = n)
/// are PSCR's top level exactly and the eigen solve takes about a second at most.
constexpr index_t kHelmholtzOtherRows = 4095;

/// The shifted systems A + s_k M: diagonally dominant (A, M, s random, diagonals well above
/// the off-diagonals); `helmholtz` (complex only) the indefinite ones of a 2D Helmholtz solve,
/// pscr::problems::HelmholtzPencil (n rows) with the shifts PSCR's top level forms (eigen_shifts:
/// the eigenvalues of another pencil of min(batch, kHelmholtzOtherRows) rows), on which guarded
/// configurations find growth and solve some systems' reduced rows again in order; `poisson`
/// (real only) those of a 2D Poisson solve on a uniform grid of spacing h = 1/(n + 1): A =
/// tridiag(−1, 2, −1)/h², M = I, s_k = (4/h_o²) sin²(kπ/(2(m + 1))), k = 1..batch, the
/// eigenvalues of the other dimension's A (m = batch rows, h_o = 1/(m + 1)), so rows of
/// (|a| + |c|)/|b| = 2/(2 + s_k h²) > 1/3, none within the window method's bound. The general
/// form's a, b, c are the same systems; d is random either way.
template <class Scalar>
Problem<Scalar> make_problem(index_t n, index_t batch, std::uint64_t seed,
                             const std::string& systems) {
  std::mt19937_64 gen(seed);
  Problem<Scalar> p{n, batch, {}, {}, {}, {}, {}, {}, {}};
  p.shifts.resize(batch);
  bool from_pencil = false;  // A, M and the shifts of the Helmholtz or Poisson systems
  if constexpr (pscr::is_complex_v<Scalar>) {
    if (systems == "helmholtz") {
      const pscr::problems::HelmholtzPencil pencil(n, seed);
      p.A = pencil.factor.A;
      p.M = pencil.factor.M;
      p.shifts = pencil.eigen_shifts(batch, std::min(batch, kHelmholtzOtherRows), seed + 1);
      from_pencil = true;
    }
  } else if (systems == "poisson") {
    const double h = 1.0 / static_cast<double>(n + 1),
                 h_other = 1.0 / static_cast<double>(batch + 1);
    p.A.diag.assign(n, 2 / (h * h));
    p.A.off.assign(n - 1, -1 / (h * h));
    p.M.diag.assign(n, 1.0);
    p.M.off.assign(n - 1, 0.0);
    const double pi = std::acos(-1.0);
    for (index_t k = 0; k < batch; ++k) {
      const double s = std::sin(static_cast<double>(k + 1) * pi * h_other / 2);
      p.shifts[k] = 4 * s * s / (h_other * h_other);
    }
    from_pencil = true;
  }
  if (!from_pencil) {
    p.A.diag.resize(n);
    p.M.diag.resize(n);
    p.A.off.resize(n - 1);
    p.M.off.resize(n - 1);
    for (index_t r = 0; r < n; ++r) {
      p.A.diag[r] = random_scalar<Scalar>(gen, 3.5, 4.5);
      p.M.diag[r] = random_scalar<Scalar>(gen, 1.75, 2.25);
    }
    for (index_t r = 0; r + 1 < n; ++r) {
      p.A.off[r] = random_scalar<Scalar>(gen, -0.5, 0.5);
      p.M.off[r] = random_scalar<Scalar>(gen, -0.25, 0.25);
    }
    for (auto& s : p.shifts) s = random_scalar<Scalar>(gen, 0.0, 2.0);
  }
  const index_t rows = n * batch;
  p.a.resize(rows);
  p.b.resize(rows);
  p.c.resize(rows);
  p.d.resize(rows);
  for (index_t k = 0; k < batch; ++k)
    for (index_t r = 0; r < n; ++r) {
      const index_t i = k * n + r;
      p.b[i] = p.A.diag[r] + p.shifts[k] * p.M.diag[r];
      p.a[i] = r > 0 ? p.A.off[r - 1] + p.shifts[k] * p.M.off[r - 1] : Scalar(0);
      p.c[i] = r + 1 < n ? p.A.off[r] + p.shifts[k] * p.M.off[r] : Scalar(0);
      p.d[i] = random_scalar<Scalar>(gen, -1.0, 1.0);
    }
  return p;
}

template <class Scalar>
std::vector<Scalar> to_interleaved(const std::vector<Scalar>& v, index_t n, index_t batch) {
  std::vector<Scalar> out(v.size());
  for (index_t k = 0; k < batch; ++k)
    for (index_t r = 0; r < n; ++r) out[r * batch + k] = v[k * n + r];
  return out;
}

template <class Scalar>
DeviceBuffer<Scalar> upload(const std::vector<Scalar>& v) {
  DeviceBuffer<Scalar> b(v.size());
  b.copy_from_host(v.data());
  return b;
}

/// Largest relative residual ‖T x_k − d_k‖/‖d_k‖ over 8 systems spread over the batch; only
/// those systems are copied back.
template <class Scalar>
double max_residual(const Problem<Scalar>& p, const DeviceBuffer<Scalar>& d_x, bool interleaved) {
  const index_t n = p.n, batch = p.batch;
  std::vector<Scalar> x(n);
  double worst = 0;
  for (int s = 0; s < 8; ++s) {
    const index_t k = std::min<index_t>(batch - 1, s * (batch / 8 + 1));
    if (interleaved)
      PSCR_CUDA_CHECK(cudaMemcpy2D(x.data(), sizeof(Scalar), d_x.data() + k, sizeof(Scalar) * batch,
                                   sizeof(Scalar), n, cudaMemcpyDeviceToHost));
    else
      PSCR_CUDA_CHECK(
          cudaMemcpy(x.data(), d_x.data() + k * n, sizeof(Scalar) * n, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (index_t r = 0; r < n; ++r) {
      const index_t i = k * n + r;
      Scalar y = p.b[i] * x[r];
      if (r > 0) y += p.a[i] * x[r - 1];
      if (r + 1 < n) y += p.c[i] * x[r + 1];
      num += std::norm(std::complex<double>(y - p.d[i]));
      den += std::norm(std::complex<double>(p.d[i]));
    }
    worst = std::max(worst, std::sqrt(num / den));
  }
  return worst;
}

struct Row {
  std::string scalar, form, layout, method, staging;
  index_t n, batch;
  int rows_per_thread;
  Timing t;
  double gbs, copy_gbs, gflops, residual;
};

void write_header(std::ostream& out) {
  out << "device,scalar,n,batch,form,layout,method,rows_per_thread,staging,median_ms,min_ms,"
         "gbs_floor,copy_gbs,fraction_of_copy,gflops_nominal,max_residual,reps,note\n";
}

void write_row(std::ostream& out, const std::string& device, const Row& r) {
  out << '"' << device << "\"," << r.scalar << ',' << r.n << ',' << r.batch << ',' << r.form << ','
      << r.layout << ',' << r.method << ',' << r.rows_per_thread << ',' << r.staging << ','
      << r.t.median_ms << ',' << r.t.min_ms << ',' << r.gbs << ',' << r.copy_gbs << ','
      << r.gbs / r.copy_gbs << ',' << r.gflops << ',' << r.residual << ',' << r.t.reps << ",\""
      << r.t.note << "\"\n";
  out.flush();
}

template <class Scalar>
void bench_shape(const Shape& shape, int reps, const Selection& sel, const std::string& device,
                 std::ostream& csv) {
  constexpr bool kComplex = pscr::is_complex_v<Scalar>;
  const char* scalar = kComplex ? "complex" : "real";
  const index_t n = shape.n, batch = shape.batch, rows = n * batch;
  const double floor_bytes = 2.0 * static_cast<double>(rows) * sizeof(Scalar);
  const Problem<Scalar> p = make_problem<Scalar>(n, batch, 12345 + n, sel.systems);
  Stream stream;

  // Device data: contiguous and interleaved copies of d and a, b, c; A, M, shifts; x.
  DeviceBuffer<Scalar> d_dc = upload(p.d), d_di = upload(to_interleaved(p.d, n, batch));
  DeviceBuffer<Scalar> d_ac = upload(p.a), d_bc = upload(p.b), d_cc = upload(p.c);
  DeviceBuffer<Scalar> d_ai = upload(to_interleaved(p.a, n, batch));
  DeviceBuffer<Scalar> d_bi = upload(to_interleaved(p.b, n, batch));
  DeviceBuffer<Scalar> d_ci = upload(to_interleaved(p.c, n, batch));
  const tc::DeviceSymTridiagBuffer<Scalar> A(p.A), M(p.M);
  DeviceBuffer<Scalar> d_shifts = upload(p.shifts);
  DeviceBuffer<Scalar> d_x(rows);

  // Copy bandwidth in the same run: n·batch scalars device to device, the fastest of three
  // medians. One median alone, right after the host generated the shape's data, once read
  // 1.93 TB/s (H100, real 8192 × 2^11) against 2.75–2.89 TB/s at every other shape of the run,
  // which made that shape's solves look 45% faster against the copy than they were.
  Timing copy;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const Timing t = time_runs(stream.get(), reps, 0, [&] {
      PSCR_CUDA_CHECK(cudaMemcpyAsync(d_x.data(), d_dc.data(), d_dc.bytes(),
                                      cudaMemcpyDeviceToDevice, stream.get()));
    });
    if (attempt == 0 || t.median_ms < copy.median_ms) copy = t;
  }
  const double copy_gbs = floor_bytes / (copy.median_ms * 1e6);
  const double copy_ms = copy.median_ms;
  write_row(csv, device,
            {scalar, "-", "-", "copy", "-", n, batch, 0, copy, copy_gbs, copy_gbs, 0, 0});
  std::cout << scalar << " n=" << n << " batch=" << batch << ": copy " << copy_gbs << " GB/s\n";

  struct Config {
    std::string name;
    bool pivoting;
    tc::Options options;
  };
  std::vector<Config> configs = {{"thomas", false, {tc::Method::thomas, 0}}};
  for (int m : {4, 8, 16})
    for (tc::Staging staging : {tc::Staging::global, tc::Staging::shared})
      configs.push_back({"partition", false, {tc::Method::partition, m, staging}});
  // warp: K from n (n > 512 runs the partition method, so only small n).
  if (n <= 512)
    for (tc::Staging staging : {tc::Staging::global, tc::Staging::shared})
      configs.push_back({"warp", false, {tc::Method::warp, 0, staging}});
  // segment: K rows per lane; block: the same segments in one pass, for 2 to 16 segments.
  for (int k : {2, 4, 8, 16})
    if (k > 2 || n <= 64) configs.push_back({"segment", false, {tc::Method::segment, k}});
  for (int k : {2, 4, 8, 16}) configs.push_back({"block", false, {tc::Method::block, k}});
  // columns: the segments with a thread per chunk of K rows, systems fastest (interleaved layouts,
  // and one segment of complex contiguous ones through tiles).
  for (int k : {2, 4, 8, 16}) configs.push_back({"columns", false, {tc::Method::columns, k}});
  // sweep: K from n (shifted form, contiguous rows, n <= 768), n = 769 to 16384 the cluster
  // kernel, real with K = 16 or 8 (both asked for: where K is left open, the batch's rows and the
  // padding choose), complex up to 8192 rows with K = 8, and up to 1024 rows with K = 16 too (its
  // InBlock instance); elsewhere it runs the block method.
  configs.push_back({"sweep", false, {tc::Method::sweep, n > 768 ? 8 : 0}});
  if (n > 768 && (!kComplex || n <= tc::kSweepComplexWideMaxRows))
    configs.push_back({"sweep", false, {tc::Method::sweep, 16}});
  // window: overlapping windows of 512 rows, each solved alone (shifted systems of more than 512
  // rows whose rows are dominant enough; the sweep window kernel on contiguous rows, the columns
  // method's windows on interleaved ones), staging "checked": each call checks the
  // bound on the device, its window kernel and the table's method gated on the check (the one
  // that runs solves); "assured": Options::window_bound, where window_bound_holds found these
  // systems within it.
  configs.push_back({"window", false, {tc::Method::window, 16}});
  if (sel.has_method("window") &&
      tc::window_bound_holds(stream.get(), A.view(), M.view(), d_shifts.data(), batch)) {
    tc::Options assured{tc::Method::window, 16};
    assured.window_bound = true;
    configs.push_back({"window", false, assured});
  }
  // tiled_pcr: 2^k independent systems per system for its Thomas stage.
  for (int k : {2, 4, 8}) configs.push_back({"tiled_pcr", false, {tc::Method::tiled_pcr, k}});
  configs.push_back({"automatic", false, {}});
  // Complex systems declared diagonally dominant (Options::dominant), as these are: the table's
  // dominant entries, without the bound on the rows a lane eliminates.
  if (kComplex && pscr::tridiag::reference::shifted_dominant(p.A, p.M, p.shifts.data(), batch))
    configs.push_back(
        {"automatic_dominant", false, {tc::Method::automatic, 0, tc::Staging::automatic, true}});
  configs.push_back({"pivoting", true, {}});
  configs.erase(std::remove_if(configs.begin(), configs.end(),
                               [&](const Config& c) {
                                 return !sel.has_method(c.name) ||
                                        !sel.has_rows(c.options.rows_per_thread);
                               }),
                configs.end());
  index_t ws_count = tc::pivoting_workspace_size(n, batch);
  for (const Config& c : configs)
    if (!c.pivoting) ws_count = std::max(ws_count, tc::workspace_size<Scalar>(n, batch, c.options));
  DeviceBuffer<Scalar> d_ws(ws_count);

  // staging: as requested ("shared" falls back to "global" where the tables do not fit).
  auto record = [&](const std::string& form, const std::string& layout, const std::string& method,
                    int m, const std::string& staging, const Timing& t, double residual) {
    const double gbs = t.median_ms > 0 ? floor_bytes / (t.median_ms * 1e6) : 0.0;
    Row r{scalar, form, layout, method, staging, n, batch, m, t, gbs, copy_gbs, 0, residual};
    r.gflops = t.median_ms > 0 ? nominal_flops(method, m, form == "shifted", kComplex) *
                                     static_cast<double>(rows) / (t.median_ms * 1e6)
                               : 0.0;
    write_row(csv, device, r);
    std::cout << "  " << form << ' ' << layout << ' ' << method << (m ? " M=" : "")
              << (m ? std::to_string(m) : "") << ' ' << staging << ": " << t.median_ms << " ms, "
              << r.gbs << " GB/s (" << 100 * r.gbs / copy_gbs << "% of copy), residual " << residual
              << (t.note.empty() ? "" : " [" + t.note + "]") << '\n';
  };

  for (bool interleaved : {false, true}) {
    // Per configuration: set once it was skipped on either form, which skips the other.
    std::vector<std::string> skipped(configs.size());
    const BatchLayout l =
        interleaved ? BatchLayout::interleaved(batch) : BatchLayout::contiguous(n);
    const char* layout = interleaved ? "interleaved" : "contiguous";
    if (!sel.has_layout(layout)) continue;
    const Scalar* d = interleaved ? d_di.data() : d_dc.data();
    const Scalar* a = interleaved ? d_ai.data() : d_ac.data();
    const Scalar* b = interleaved ? d_bi.data() : d_bc.data();
    const Scalar* c = interleaved ? d_ci.data() : d_cc.data();
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const Config& cfg = configs[ci];
      for (const char* form : {"shifted", "general"}) {
        if (!sel.has_form(form)) continue;
        const bool shifted = std::string(form) == "shifted";
        // A method that does not apply here runs another one (the segment and block methods on
        // interleaved layouts, the columns method on contiguous ones but complex shifted systems
        // of one segment, the block method outside 2 to 16 segments): not measured under its
        // name.
        if (!cfg.pivoting && cfg.options.method != tc::Method::automatic &&
            tc::resolved_options<Scalar>(n, batch, l, !shifted, cfg.options).method !=
                cfg.options.method)
          continue;
        auto run = [&] {
          if (shifted && cfg.pivoting)
            tc::solve_shifted_pivoting(stream.get(), A.view(), M.view(), d_shifts.data(), batch, d,
                                       l, d_x.data(), l, d_ws.data(), ws_count);
          else if (shifted)
            tc::solve_shifted(stream.get(), A.view(), M.view(), d_shifts.data(), batch, d, l,
                              d_x.data(), l, d_ws.data(), ws_count, cfg.options);
          else if (cfg.pivoting)
            tc::solve_general_pivoting(stream.get(), n, batch, a, b, c, d, l, d_x.data(), l,
                                       d_ws.data(), ws_count);
          else
            tc::solve_general(stream.get(), n, batch, a, b, c, d, l, d_x.data(), l, d_ws.data(),
                              ws_count, cfg.options);
        };
        Timing t;
        if (skipped[ci].empty()) {
          t = time_runs(stream.get(), reps, copy_ms, run);
          if (!t.note.empty()) skipped[ci] = t.note + " (" + form + ", " + layout + ")";
        } else {
          t = {0, 0, 0, skipped[ci]};
        }
        const bool staged_method =
            cfg.options.method == tc::Method::partition || cfg.options.method == tc::Method::warp;
        const char* staging = cfg.options.method == tc::Method::window
                                  ? (cfg.options.window_bound ? "assured" : "checked")
                              : !staged_method || !shifted                 ? "-"
                              : cfg.options.staging == tc::Staging::shared ? "shared"
                                                                           : "global";
        record(form, layout, cfg.name, cfg.options.rows_per_thread, staging, t,
               t.reps > 0 ? max_residual(p, d_x, interleaved) : 0.0);
      }
    }
  }

  // cuSPARSE on the same general systems.
  if (!sel.has_method("cusparse") || !sel.has_form("general")) return;
  cusparseHandle_t handle = nullptr;
  PSCR_CUSPARSE_CHECK(cusparseCreate(&handle));
  try {
    PSCR_CUSPARSE_CHECK(cusparseSetStream(handle, stream.get()));
    using C = std::conditional_t<kComplex, cuDoubleComplex, double>;
    auto cs = [](const Scalar* v) { return reinterpret_cast<const C*>(v); };
    auto ms = [](Scalar* v) { return reinterpret_cast<C*>(v); };
    const int m = static_cast<int>(n), bc = static_cast<int>(batch);
    {
      std::size_t bytes = 0;
      if constexpr (kComplex)
        PSCR_CUSPARSE_CHECK(cusparseZgtsv2StridedBatch_bufferSizeExt(
            handle, m, cs(d_ac.data()), cs(d_bc.data()), cs(d_cc.data()), cs(d_x.data()), bc, m,
            &bytes));
      else
        PSCR_CUSPARSE_CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(
            handle, m, cs(d_ac.data()), cs(d_bc.data()), cs(d_cc.data()), cs(d_x.data()), bc, m,
            &bytes));
      DeviceBuffer<unsigned char> buffer(std::max<std::size_t>(bytes, 1));
      auto restore = [&] {
        PSCR_CUDA_CHECK(cudaMemcpyAsync(d_x.data(), d_dc.data(), d_dc.bytes(),
                                        cudaMemcpyDeviceToDevice, stream.get()));
      };
      auto run = [&] {
        if constexpr (kComplex)
          PSCR_CUSPARSE_CHECK(cusparseZgtsv2StridedBatch(handle, m, cs(d_ac.data()),
                                                         cs(d_bc.data()), cs(d_cc.data()),
                                                         ms(d_x.data()), bc, m, buffer.data()));
        else
          PSCR_CUSPARSE_CHECK(cusparseDgtsv2StridedBatch(handle, m, cs(d_ac.data()),
                                                         cs(d_bc.data()), cs(d_cc.data()),
                                                         ms(d_x.data()), bc, m, buffer.data()));
      };
      const Timing t = time_runs(stream.get(), reps, copy_ms, run, restore);
      record("general", "contiguous", "cusparse_gtsv2StridedBatch", 0, "-", t,
             max_residual(p, d_x, false));
    }
    // gtsvInterleavedBatch may overwrite dl, d, du: restore them (untimed) before each run.
    DeviceBuffer<Scalar> d_aw(rows), d_bw(rows), d_cw(rows);
    for (int algo = 0; algo <= 2; ++algo) {
      std::size_t bytes = 0;
      if constexpr (kComplex)
        PSCR_CUSPARSE_CHECK(cusparseZgtsvInterleavedBatch_bufferSizeExt(
            handle, algo, m, cs(d_ai.data()), cs(d_bi.data()), cs(d_ci.data()), cs(d_x.data()), bc,
            &bytes));
      else
        PSCR_CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch_bufferSizeExt(
            handle, algo, m, cs(d_ai.data()), cs(d_bi.data()), cs(d_ci.data()), cs(d_x.data()), bc,
            &bytes));
      DeviceBuffer<unsigned char> buffer(std::max<std::size_t>(bytes, 1));
      auto restore = [&] {
        for (auto [dst, src] : {std::pair{&d_aw, &d_ai}, std::pair{&d_bw, &d_bi},
                                std::pair{&d_cw, &d_ci}, std::pair{&d_x, &d_di}})
          PSCR_CUDA_CHECK(cudaMemcpyAsync(dst->data(), src->data(), src->bytes(),
                                          cudaMemcpyDeviceToDevice, stream.get()));
      };
      auto run = [&] {
        if constexpr (kComplex)
          PSCR_CUSPARSE_CHECK(cusparseZgtsvInterleavedBatch(handle, algo, m, ms(d_aw.data()),
                                                            ms(d_bw.data()), ms(d_cw.data()),
                                                            ms(d_x.data()), bc, buffer.data()));
        else
          PSCR_CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch(handle, algo, m, ms(d_aw.data()),
                                                            ms(d_bw.data()), ms(d_cw.data()),
                                                            ms(d_x.data()), bc, buffer.data()));
      };
      const Timing t = time_runs(stream.get(), reps, copy_ms, run, restore);
      record("general", "interleaved", "cusparse_gtsvInterleavedBatch_algo" + std::to_string(algo),
             0, "-", t, max_residual(p, d_x, true));
    }
  } catch (...) {
    cusparseDestroy(handle);
    throw;
  }
  cusparseDestroy(handle);
}

/// The items of a comma-separated list, each checked against `allowed`.
std::vector<std::string> parse_list(const std::string& option, const std::string& text,
                                    const std::vector<std::string>& allowed) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (std::find(allowed.begin(), allowed.end(), item) == allowed.end()) {
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
      PSCR_INPUT_ERROR(option << ": expected one or more of " << names << ", found '" << item
                              << "'");
    }
    items.push_back(item);
  }
  return items;
}

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> shapes;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      PSCR_INPUT_ERROR("--shapes: expected n:batch, found '" << item << "'");
    shapes.push_back({parse_positive("--shapes n", item.substr(0, colon)),
                      parse_positive("--shapes batch", item.substr(colon + 1))});
  }
  return shapes;
}

constexpr const char* kUsage =
    "usage: tridiag_bench OUTPUT.csv [--reps R] [--shapes n:batch,...] [--methods M,...] "
    "[--layouts contiguous|interleaved] [--scalars real|complex] [--forms shifted|general] "
    "[--rows K,...] [--systems dominant|helmholtz|poisson]\n";

/// The run's settings from the command line (input errors name what was expected and found).
struct Arguments {
  std::string output;
  int reps = 20;
  std::vector<Shape> shapes = default_shapes();
  Selection sel;
};

Arguments parse_arguments(int argc, char** argv) {
  Arguments a;
  a.output = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string value = pscr::bench::option_value(argc, argv, i);
    if (arg == "--reps")
      a.reps = std::max(10, parse_positive<int>(arg, value));
    else if (arg == "--shapes")
      a.shapes = parse_shapes(value);
    else if (arg == "--methods")
      a.sel.methods = parse_list(
          arg, value,
          {"thomas", "partition", "warp", "segment", "block", "sweep", "columns", "tiled_pcr",
           "window", "automatic", "automatic_dominant", "pivoting", "cusparse"});
    else if (arg == "--layouts")
      a.sel.layouts = parse_list(arg, value, {"contiguous", "interleaved"});
    else if (arg == "--scalars")
      a.sel.scalars = parse_list(arg, value, {"real", "complex"});
    else if (arg == "--forms")
      a.sel.forms = parse_list(arg, value, {"shifted", "general"});
    else if (arg == "--rows")
      a.sel.rows = parse_list(arg, value, {"2", "4", "8", "16"});
    else if (arg == "--systems") {
      if (value != "dominant" && value != "helmholtz" && value != "poisson")
        PSCR_INPUT_ERROR("--systems: expected dominant, helmholtz or poisson, found '" << value
                                                                                       << "'");
      a.sel.systems = value;
    } else
      PSCR_INPUT_ERROR("unknown argument '" << arg << "'");
  }
  // Helmholtz systems with absorbing ends are complex, the Poisson ones real.
  const bool helmholtz = a.sel.systems == "helmholtz";
  const std::string scalar = helmholtz ? "complex" : "real";
  if (a.sel.systems != "dominant" && a.sel.scalars != std::vector<std::string>{scalar})
    PSCR_INPUT_ERROR("--systems " << a.sel.systems << ": expected --scalars " << scalar
                                  << (helmholtz ? " (the Helmholtz systems with absorbing ends are "
                                                  "complex)"
                                                : " (the Poisson systems are real)")
                                  << ", found "
                                  << (a.sel.scalars.empty() ? std::string("both scalar types")
                                                            : "--scalars " + a.sel.scalars[0]));
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && pscr::bench::is_help(argv[1])) {
    std::cout << kUsage;
    return 0;
  }
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  Arguments args;
  try {
    args = parse_arguments(argc, argv);
  } catch (const pscr::InputError& e) {
    std::cerr << "tridiag_bench: " << e.what() << '\n' << kUsage;
    return 2;
  }
  try {
    if (pscr::cuda::device_count() == 0) throw pscr::LibraryError("no CUDA device");
    cudaDeviceProp prop{};
    PSCR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::ofstream csv(args.output);
    if (!csv) throw pscr::OutputError("cannot write " + args.output);
    write_header(csv);
    for (const Shape& s : args.shapes) {
      if (args.sel.has_scalar("real")) bench_shape<double>(s, args.reps, args.sel, prop.name, csv);
      if (args.sel.has_scalar("complex"))
        bench_shape<std::complex<double>>(s, args.reps, args.sel, prop.name, csv);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tridiag_bench: " << e.what() << '\n';
    return 1;
  }
}

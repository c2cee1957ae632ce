// check_options (tridiag/cuda/options.cpp): the rows_per_thread each method of the GPU solvers
// takes, and entry_options / select_method (tridiag/cuda/selection.cpp): how a selection table
// entry applies to other sizes and which entries complex systems take, and the solvers' refusal of
// misaligned complex arrays, checked on the host without a device.
#include <gtest/gtest.h>

#include <complex>
#include <string>

#include "common/error.hpp"
#include "tridiag/cuda/selection.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag {
namespace {

using cuda::Method;

void expect_valid(Method method, int rows) {
  EXPECT_NO_THROW(cuda::check_options({method, rows}))
      << "method " << static_cast<int>(method) << ", rows_per_thread " << rows;
}
void expect_invalid(Method method, int rows) {
  EXPECT_THROW(cuda::check_options({method, rows}), InputError)
      << "method " << static_cast<int>(method) << ", rows_per_thread " << rows;
}

TEST(CudaOptions, LaneMethodsTakeTwoToSixteenRows) {
  for (Method m : {Method::automatic, Method::thomas, Method::warp, Method::segment, Method::block,
                   Method::columns}) {
    for (int r : {0, 2, 4, 8, 16}) expect_valid(m, r);
    for (int r : {-2, 1, 3, 6, 12, 32}) expect_invalid(m, r);
  }
}

TEST(CudaOptions, PartitionTakesFourToSixteenRows) {
  for (int r : {0, 4, 8, 16}) expect_valid(Method::partition, r);
  for (int r : {-4, 2, 3, 12, 32}) expect_invalid(Method::partition, r);
}

// The sweep method's K (resolved_options reports the even K ≥ 4 covering n, e.g. 12 at n = 361 and
// 32 at n = 1000) must be accepted back, up to kSweepMaxLaneRows.
TEST(CudaOptions, SweepTakesAnyRowsUpToItsLimit) {
  for (int r = 0; r <= cuda::kSweepMaxLaneRows; ++r) expect_valid(Method::sweep, r);
  for (int r : {-1, cuda::kSweepMaxLaneRows + 1, 128}) expect_invalid(Method::sweep, r);
}

// Its PCR steps: 2^k independent systems per system, up to the sliding window's limit.
TEST(CudaOptions, TiledPcrTakesUpToItsMostSteps) {
  for (int r = 0; r <= cuda::kTiledPcrMaxSteps; ++r) expect_valid(Method::tiled_pcr, r);
  for (int r : {-1, cuda::kTiledPcrMaxSteps + 1, 16}) expect_invalid(Method::tiled_pcr, r);
}

// The window method's K: 16 (windows of 512 rows), or 0 for it.
TEST(CudaOptions, WindowTakesSixteenRows) {
  for (int r : {0, 16}) expect_valid(Method::window, r);
  for (int r : {-1, 2, 8, 24, 32}) expect_invalid(Method::window, r);
}

// A refusal names what was expected and what was found.
TEST(CudaOptions, RefusalsNameTheRowsTaken) {
  auto message = [](Method method, int rows) -> std::string {
    try {
      cuda::check_options({method, rows});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string lanes = message(Method::segment, 3);
  EXPECT_NE(lanes.find("must be 0, 2, 4, 8 or 16"), std::string::npos) << lanes;
  EXPECT_NE(lanes.find("got 3"), std::string::npos) << lanes;
  const std::string partition = message(Method::partition, 2);
  EXPECT_NE(partition.find("must be 0, 4, 8 or 16, got 2"), std::string::npos) << partition;
  const std::string pcr = message(Method::tiled_pcr, 9);
  EXPECT_NE(pcr.find("must be 0 to 8, got 9"), std::string::npos) << pcr;
}

// Complex arrays must be 16-byte aligned (the kernels load each element whole): each array of a
// call placed 8 bytes off, as complex data inside an array of doubles would be, is refused with an
// InputError that names it, before the device is asked anything (host pointers here, never read).
TEST(CudaOptions, MisalignedComplexArraysAreRefused) {
  using C = std::complex<double>;
  alignas(16) static C storage[4][8];
  C* const ok[4] = {storage[0], storage[1], storage[2], storage[3]};
  C* const off = reinterpret_cast<C*>(reinterpret_cast<double*>(storage[3]) + 1);
  auto refusal = [](auto call) -> std::string {
    try {
      call();
    } catch (const InputError& e) {
      return e.what();
    }
    return "not refused";
  };
  auto expect_named = [](const std::string& message, const std::string& name) {
    EXPECT_NE(message.find(name + " must be 16-byte aligned"), std::string::npos) << message;
  };
  const index_t n = 4, batch = 2;
  const BatchLayout l = BatchLayout::contiguous(n);
  const cuda::DeviceSymTridiag<C> T{ok[0], ok[1], n};
  const cuda::DeviceSymTridiag<C> T_off{off, ok[1], n};
  auto shifted = [&](cuda::DeviceSymTridiag<C> A, const C* s, const C* d, C* x, C* ws) {
    return refusal([&] { cuda::solve_shifted<C>(nullptr, A, T, s, batch, d, l, x, l, ws, 64); });
  };
  expect_named(shifted(T_off, ok[2], ok[2], ok[3], ok[0]), "A's diagonal");
  expect_named(shifted(T, off, ok[2], ok[3], ok[0]), "the shifts");
  expect_named(shifted(T, ok[2], off, ok[3], ok[0]), "d");
  expect_named(shifted(T, ok[2], ok[2], off, ok[0]), "x");
  expect_named(shifted(T, ok[2], ok[2], ok[3], off), "the workspace");
  expect_named(refusal([&] {
                 cuda::solve_general<C>(nullptr, n, batch, ok[0], off, ok[1], ok[2], l, ok[3], l,
                                        ok[0], 64);
               }),
               "b");
  expect_named(refusal([&] {
                 cuda::solve_shifted_pivoting<C>(nullptr, T, T, ok[2], batch, ok[2], l, off, l,
                                                 ok[0], 64);
               }),
               "x");
  expect_named(refusal([&] {
                 cuda::solve_general_pivoting<C>(nullptr, n, batch, ok[0], ok[1], ok[1], off, l,
                                                 ok[3], l, ok[0], 64);
               }),
               "d");
}

// A segment-method entry measured on one segment keeps longer systems in one segment where a K
// of at most 16 covers them (complex entries that are not dominant: kMaxGuardedLaneRows, guarded),
// else takes the block method with its K (complex entries that are not dominant: at most
// kMaxComplexLaneRows); a complex columns entry that is not dominant and guarded (more than
// kMaxComplexLaneRows rows per thread, one segment) does the same with the columns method; any
// other entry, and systems its K covers, take the entry as it is.
TEST(CudaOptions, OneSegmentEntriesKeepSystemsInOneSegment) {
  // {interleaved, complex, dominant, general, n, batch, method, rows_per_thread, staged}
  const cuda::SelectionEntry one{false, false, false, false, 127, 16384, Method::segment, 4, false};
  auto expect = [](const cuda::Options& o, Method method, int rows) {
    EXPECT_EQ(o.method, method);
    EXPECT_EQ(o.rows_per_thread, rows);
  };
  expect(cuda::entry_options(one, 100), Method::segment, 4);
  expect(cuda::entry_options(one, 128), Method::segment, 4);
  expect(cuda::entry_options(one, 129), Method::segment, 8);
  expect(cuda::entry_options(one, 180), Method::segment, 8);
  expect(cuda::entry_options(one, 300), Method::segment, 16);
  expect(cuda::entry_options(one, 513), Method::block, 4);
  const cuda::SelectionEntry one_complex{false,           true, false, false, 127, 16384,
                                         Method::segment, 4,    false};
  expect(cuda::entry_options(one_complex, 129), Method::segment, 8);  // guarded, one segment
  expect(cuda::entry_options(one_complex, 512), Method::segment, 16);
  expect(cuda::entry_options(one_complex, 513), Method::block, 4);
  const cuda::SelectionEntry guarded_segment{false,           true, false, false, 255, 65536,
                                             Method::segment, 8,    false};
  expect(cuda::entry_options(guarded_segment, 400), Method::segment, 16);
  expect(cuda::entry_options(guarded_segment, 513), Method::block, cuda::kMaxComplexLaneRows);
  const cuda::SelectionEntry one_dominant{false,           true, true, false, 127, 16384,
                                          Method::segment, 4,    false};
  expect(cuda::entry_options(one_dominant, 129), Method::segment, 8);  // dominant: any K
  expect(cuda::entry_options(one_dominant, 513), Method::block, 4);
  const cuda::SelectionEntry two{false, true, false, true, 64, 262144, Method::segment, 2, false};
  expect(cuda::entry_options(two, 100), Method::segment, 4);
  expect(cuda::entry_options(two, 200), Method::segment, 8);
  expect(cuda::entry_options(two, 600), Method::block, 2);
  // Measured on several segments: the entry's K, whatever n.
  const cuda::SelectionEntry many{false, false,           false, false, 8192,
                                  2048,  Method::segment, 8,     false};
  expect(cuda::entry_options(many, 20000), Method::segment, 8);
  expect(cuda::entry_options(many, 100), Method::segment, 8);
  // A guarded columns entry: one segment up to kMaxGuardedLaneRows, else kMaxComplexLaneRows; a
  // dominant one, or one of at most kMaxComplexLaneRows, takes any n as it is.
  const cuda::SelectionEntry columns{true, true, false, true, 255, 65536, Method::columns,
                                     8,    false};
  expect(cuda::entry_options(columns, 256), Method::columns, 8);
  expect(cuda::entry_options(columns, 300), Method::columns, 16);
  expect(cuda::entry_options(columns, 513), Method::columns, cuda::kMaxComplexLaneRows);
  const cuda::SelectionEntry columns_dominant{true, true, true, true, 255, 65536, Method::columns,
                                              8,    false};
  expect(cuda::entry_options(columns_dominant, 513), Method::columns, 8);
  const cuda::SelectionEntry columns_bounded{true, true, false, false, 1024, 16384, Method::columns,
                                             4,    false};
  expect(cuda::entry_options(columns_bounded, 100), Method::columns, 4);
  expect(cuda::entry_options(columns_bounded, 5000), Method::columns, 4);
  // A columns entry of contiguous rows (one segment, through tiles) extends as a segment entry.
  const cuda::SelectionEntry contiguous_columns{false,           true, false, false, 127, 131072,
                                                Method::columns, 8,    false};
  expect(cuda::entry_options(contiguous_columns, 200), Method::columns, 8);
  expect(cuda::entry_options(contiguous_columns, 300), Method::columns, 16);
  expect(cuda::entry_options(contiguous_columns, 600), Method::block, cuda::kMaxComplexLaneRows);
  const cuda::SelectionEntry dominant_columns{false,           true, true, false, 33, 500000,
                                              Method::columns, 16,   false};
  expect(cuda::entry_options(dominant_columns, 1000), Method::block, 16);
  const cuda::SelectionEntry block{false, true, false, false, 1024, 16384, Method::block, 4, false};
  expect(cuda::entry_options(block, 4000), Method::block, 4);
  const cuda::SelectionEntry thomas{true,  false,          false, false, 361,
                                    65536, Method::thomas, 0,     false};
  expect(cuda::entry_options(thomas, 4000), Method::thomas, 0);
}

// A complex sweep entry that is not dominant (the guarded sweep) takes systems of up to
// kSweepGuardedMaxRows rows, longer ones the block method with kMaxComplexLaneRows; a dominant or
// real sweep entry takes any.
TEST(CudaOptions, GuardedSweepEntriesStopAtTheirVerifiedRows) {
  auto expect = [](const cuda::Options& o, Method method, int rows) {
    EXPECT_EQ(o.method, method);
    EXPECT_EQ(o.rows_per_thread, rows);
  };
  const cuda::SelectionEntry guarded{false, true,          false, false, 512,
                                     32768, Method::sweep, 0,     false};
  expect(cuda::entry_options(guarded, 700), Method::sweep, 0);
  expect(cuda::entry_options(guarded, cuda::kSweepGuardedMaxRows), Method::sweep, 0);
  expect(cuda::entry_options(guarded, cuda::kSweepGuardedMaxRows + 1), Method::block,
         cuda::kMaxComplexLaneRows);
  const cuda::SelectionEntry dominant{false, true,          true, false, 512,
                                      32768, Method::sweep, 0,    false};
  expect(cuda::entry_options(dominant, 1500), Method::sweep, 0);
  const cuda::SelectionEntry real{false, false, false, false, 512, 32768, Method::sweep, 0, false};
  expect(cuda::entry_options(real, 1500), Method::sweep, 0);
}

// A complex sweep entry of K = 16 (the cluster kernel's InBlock instance, up to
// kSweepComplexWideMaxRows rows) measures nothing beyond those rows, where K = 8 runs: the H200's
// complex contiguous 1024 × 2^14 entry serves its own n, and systems of 1025 to 1448 rows, nearer
// to it than to the 2048-row entries, take the nearest entry that measured what they run (1100 ×
// 15252 the 2048 × 8192 entry's segment method). Real entries of K = 16 serve any n their kernel
// takes.
TEST(CudaOptions, ComplexWideSweepEntriesServeTheirOwnRowsOnly) {
  const cuda::SelectionEntry wide{false, true, false, false, 1024, 16384, Method::sweep, 16, false};
  EXPECT_TRUE(cuda::entry_measures(wide, 769));
  EXPECT_TRUE(cuda::entry_measures(wide, cuda::kSweepComplexWideMaxRows));
  EXPECT_FALSE(cuda::entry_measures(wide, cuda::kSweepComplexWideMaxRows + 1));
  const cuda::SelectionEntry narrow{false, true, false, false, 2047, 2047, Method::sweep, 8, false};
  EXPECT_TRUE(cuda::entry_measures(narrow, 4000));
  const cuda::SelectionEntry real{false, false,         false, false, 1024,
                                  16384, Method::sweep, 16,    false};
  EXPECT_TRUE(cuda::entry_measures(real, 4000));
  const cuda::SelectionGpu h200 = cuda::SelectionGpu::h200;
  const cuda::Options own = cuda::select_method(h200, 1024, 16384, false, true, false, false);
  EXPECT_EQ(own.method, Method::sweep);
  EXPECT_EQ(own.rows_per_thread, 16);
  const cuda::Options beyond = cuda::select_method(h200, 1100, 15252, false, true, false, false);
  const cuda::Options next = cuda::select_method(h200, 2048, 8192, false, true, false, false);
  EXPECT_EQ(beyond.method, next.method);
  EXPECT_EQ(beyond.rows_per_thread, next.rows_per_thread);
  for (index_t n = cuda::kSweepComplexWideMaxRows + 1; n <= 1448; n += 53)
    for (bool dominant : {false, true}) {
      const cuda::Options o =
          cuda::select_method(h200, n, (index_t{1} << 24) / n, false, true, false, dominant);
      EXPECT_FALSE(o.method == Method::sweep && o.rows_per_thread > 8) << "n " << n;
    }
}

// PSCR's 2D systems (batch ≈ n) take the entry measured at their own shape, n × n for the
// benchmark's n = 255 to 4095, and beyond those the entry of their own n (2^24 rows), not a
// neighbour's whose batch is nearer: at 2048 rows the 4096-row entry's sweep method once ran one
// warp of K = 64 per system (selection.cpp, kNWeight).
TEST(CudaOptions, SystemsTakeTheEntryOfTheirOwnLength) {
  for (cuda::SelectionGpu gpu : cuda::kSelectionGpus)
    for (bool complex : {false, true})
      for (bool general : {false, true})
        for (index_t n : {511, 1023, 2047, 4095, 8192}) {
          const index_t measured = n < 8192 ? n : (index_t{1} << 24) / n;
          const cuda::Options own =
              cuda::select_method(gpu, n, measured, false, complex, general, false);
          for (index_t batch : {3 * n / 4, n, 4 * n / 3}) {
            SCOPED_TRACE(::testing::Message() << "table " << static_cast<int>(gpu) << ", n " << n
                                              << ", batch " << batch);
            const cuda::Options pscr =
                cuda::select_method(gpu, n, batch, false, complex, general, false);
            EXPECT_EQ(pscr.method, own.method);
            EXPECT_EQ(pscr.rows_per_thread, own.rows_per_thread);
          }
        }
}

// The window method comes from a table only where it runs, the shifted form of more than
// 32·kWindowLaneRows rows: to any call where an entry's `checked` flag is set (its bound checked
// on the device), and to calls that assure its bound (Options::window_bound) also where its
// `window` flag is. Its fallback is the entry's own configuration (select_method's `exact`), whose
// kernels must read the check's gate there: the sweep, block, segment or columns method (solve.cu,
// gateable_method; any other throws LibraryError), never the window method itself.
TEST(CudaOptions, TheWindowMethodComesFromATableWhereItRuns) {
  for (cuda::SelectionGpu gpu : cuda::kSelectionGpus)
    for (bool interleaved : {false, true})
      for (bool complex : {false, true})
        for (bool general : {false, true})
          for (index_t n : {64, 512, 513, 600, 700, 1023, 4096, 8192, 65536, 1 << 20})
            for (index_t batch : {1, 16, 256, 2048, 16384, 1 << 17}) {
              SCOPED_TRACE(::testing::Message()
                           << "table " << static_cast<int>(gpu) << ", n " << n << ", batch "
                           << batch << ", interleaved " << interleaved << ", complex " << complex
                           << ", general " << general);
              for (bool dominant : {false, true}) {
                for (bool assured : {false, true}) {
                  const cuda::Options o = cuda::select_method(gpu, n, batch, interleaved, complex,
                                                              general, dominant, assured);
                  EXPECT_EQ(o.window_bound, assured);
                  if (general || n <= cuda::kWindowRows) EXPECT_NE(o.method, Method::window);
                }
                const cuda::Options exact = cuda::select_method(gpu, n, batch, interleaved, complex,
                                                                general, dominant, false, true);
                if (!general && n > cuda::kWindowRows)
                  EXPECT_TRUE(exact.method == Method::sweep || exact.method == Method::block ||
                              exact.method == Method::segment || exact.method == Method::columns)
                      << "the fallback's method " << static_cast<int>(exact.method);
              }
            }
  // Where the H100's table measured it faster with its check (real 65536 × 256: 0.135 against
  // the segment method's 0.173 ms, 2026-12-07) and, assured, not where it was slower (real
  // 8192 × 2048).
  const cuda::SelectionGpu h100 = cuda::SelectionGpu::h100;
  for (bool assured : {false, true}) {
    const cuda::Options window =
        cuda::select_method(h100, 65536, 256, false, false, false, false, assured);
    EXPECT_EQ(window.method, Method::window);
    EXPECT_EQ(window.rows_per_thread, cuda::kWindowLaneRows);
  }
  EXPECT_EQ(cuda::select_method(h100, 65536, 256, false, false, false, false, false, true).method,
            Method::segment);
  EXPECT_NE(cuda::select_method(h100, 8192, 2048, false, false, false, false, true).method,
            Method::window);
}

// Each GPU's name finds its own table; GPUs without one take the H100's.
TEST(CudaOptions, GpuNamesFindTheirTables) {
  EXPECT_EQ(cuda::selection_gpu("NVIDIA H200"), cuda::SelectionGpu::h200);
  EXPECT_EQ(cuda::selection_gpu("NVIDIA GH200 480GB"), cuda::SelectionGpu::h200);
  EXPECT_EQ(cuda::selection_gpu("NVIDIA H100 80GB HBM3"), cuda::SelectionGpu::h100);
  EXPECT_EQ(cuda::selection_gpu("NVIDIA A100-SXM4-40GB"), cuda::SelectionGpu::h100);
  EXPECT_EQ(cuda::selection_gpu(""), cuda::SelectionGpu::h100);
}

// The tables differ where their GPUs' measurements did: a shape whose fastest configuration the
// H200's run found elsewhere than the H100's (complex contiguous 4095 × 4095 declared dominant,
// 2D PSCR 4095²'s level-3 batch: the H100's table the sweep method with K = 8, the H200's the
// segment method with K = 16, as their entries' own configurations; runs of 2026-12-06 and
// 2026-12-04).
TEST(CudaOptions, EachGpuTakesItsOwnTable) {
  const cuda::Options h100 = cuda::select_method(cuda::SelectionGpu::h100, 4095, 4095, false, true,
                                                 false, true, false, true);
  const cuda::Options h200 = cuda::select_method(cuda::SelectionGpu::h200, 4095, 4095, false, true,
                                                 false, true, false, true);
  EXPECT_EQ(h100.method, cuda::Method::sweep);
  EXPECT_EQ(h200.method, cuda::Method::segment);
}

// Each table (tridiag/cuda/selection_table_<gpu>.inc) as select_method reads it: complex systems
// that are not declared dominant never get more than kMaxComplexLaneRows rows per lane or
// partition, whatever the shape, except from a guarded configuration where it was verified (the
// segment and columns methods on one segment up to kMaxGuardedLaneRows, the sweep method up to
// kSweepGuardedMaxRows rows); declared dominant they take the dominant entries, and the choice
// says so.
TEST(CudaOptions, ComplexChoicesKeepTheBoundUnlessDominant) {
  for (cuda::SelectionGpu gpu : cuda::kSelectionGpus) {
    SCOPED_TRACE(::testing::Message() << "table " << static_cast<int>(gpu));
    bool wider = false;    // some dominant choice takes more rows per lane (the table's point)
    bool guarded = false;  // some choice that is not dominant takes guarded columns (n ≤ 512)
    for (bool interleaved : {false, true})
      for (bool general : {false, true})
        for (index_t n : {1, 33, 64, 100, 361, 512, 1000, 4097, 65537, 1 << 20})
          for (index_t batch : {1, 16, 300, 2048, 1 << 18}) {
            const cuda::Options bounded =
                cuda::select_method(gpu, n, batch, interleaved, true, general, false);
            EXPECT_FALSE(bounded.dominant);
            const int K = bounded.rows_per_thread;
            const bool one_segment = 32 * static_cast<index_t>(K) >= n;
            SCOPED_TRACE(::testing::Message()
                         << "n " << n << ", batch " << batch << ", interleaved " << interleaved
                         << ", general " << general);
            if (bounded.method == Method::sweep)
              EXPECT_LE(n, cuda::kSweepGuardedMaxRows);
            else if ((bounded.method == Method::segment || bounded.method == Method::columns) &&
                     one_segment)
              EXPECT_LE(K, cuda::kMaxGuardedLaneRows);
            else if (bounded.method != Method::thomas && bounded.method != Method::tiled_pcr &&
                     bounded.method != Method::warp)
              EXPECT_LE(K, cuda::kMaxComplexLaneRows);
            guarded = guarded || (one_segment && K > cuda::kMaxComplexLaneRows &&
                                  bounded.method == Method::columns);
            const cuda::Options dominant =
                cuda::select_method(gpu, n, batch, interleaved, true, general, true);
            EXPECT_TRUE(dominant.dominant);
            wider = wider || dominant.method == Method::sweep ||
                    dominant.rows_per_thread > cuda::kMaxComplexLaneRows;
            // Real systems have one kind of entry: dominant or not, the same choice.
            const cuda::Options real =
                cuda::select_method(gpu, n, batch, interleaved, false, general, true);
            const cuda::Options real_any =
                cuda::select_method(gpu, n, batch, interleaved, false, general, false);
            EXPECT_EQ(real.method, real_any.method);
            EXPECT_EQ(real.rows_per_thread, real_any.rows_per_thread);
          }
    EXPECT_TRUE(wider);
    EXPECT_TRUE(guarded);
  }
}

}  // namespace
}  // namespace pscr::tridiag

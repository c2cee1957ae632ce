#pragma once
/// @file Where the systems of a batch live in memory. Element (system k, row r) of an array is at
/// `k * system_stride + r * row_stride`:
///   contiguous: system_stride ≥ n (padded leading dimension), row_stride = 1;
///   interleaved: system_stride = 1, row_stride ≥ batch.
/// Any other positive strides are allowed (PSCR's systems live inside larger arrays).

#include "common/scalar.hpp"

namespace pscr::tridiag {

struct BatchLayout {
  index_t system_stride = 0;
  index_t row_stride = 1;

  index_t offset(index_t system, index_t row) const {
    return system * system_stride + row * row_stride;
  }
  static BatchLayout contiguous(index_t n) { return {n, 1}; }
  static BatchLayout interleaved(index_t batch) { return {1, batch}; }
};

}  // namespace pscr::tridiag

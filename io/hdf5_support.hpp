#pragma once
/// @file Internal to io/ (includes hdf5.h; not part of the public API): RAII handles for HDF5
/// identifiers, the checked-call macro, a validating reader and an atomic writer shared by the
/// problem, solution and eigen-data files.
///
/// Every HDF5 call goes through PSCR_H5_CHECK: a negative return throws LibraryError naming the
/// call, the place and HDF5's own error description. HDF5's automatic error printing is turned
/// off for the duration of each public io/ call (ErrorPrintingOff) and restored afterwards.
/// HDF5 in Debian is built without thread safety: io/ calls must not run concurrently.

#include <hdf5.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/scalar.hpp"

namespace pscr::io::detail {

/// HDF5's error stack as text (outermost and innermost description), for LibraryError messages.
std::string hdf5_error_stack();

/// Returns `value` unless it is negative (HDF5's failure convention for hid_t, herr_t, htri_t).
template <class T>
T h5_check(T value, const char* call, const char* file, int line) {
  if (value < 0)
    ::pscr::detail::throw_library_error("HDF5", call, static_cast<long>(value), hdf5_error_stack(),
                                        file, line);
  return value;
}

}  // namespace pscr::io::detail

/// Checks an HDF5 call and yields its value: `hid_t d = PSCR_H5_CHECK(H5Dopen2(...));`.
#define PSCR_H5_CHECK(call) ::pscr::io::detail::h5_check((call), #call, __FILE__, __LINE__)
/// Throws for an HDF5 call that signalled failure another way (a null pointer, a zero size).
#define PSCR_H5_FAIL(call_text)                              \
  ::pscr::detail::throw_library_error("HDF5", call_text, -1, \
                                      ::pscr::io::detail::hdf5_error_stack(), __FILE__, __LINE__)

namespace pscr::io::detail {

/// @brief Turns HDF5's automatic error printing off and restores the previous handler on exit.
class ErrorPrintingOff {
 public:
  ErrorPrintingOff();
  ~ErrorPrintingOff();
  ErrorPrintingOff(const ErrorPrintingOff&) = delete;
  ErrorPrintingOff& operator=(const ErrorPrintingOff&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
  bool saved_ = false;
};

/// @brief Owns one HDF5 identifier and closes it with its type's close function.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  /// Takes ownership of `id` (already checked to be valid).
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();

  hid_t get() const { return id_; }
  /// Closes now and checks the result (a file's close flushes it: its failure is an error).
  void close();

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// Checked constructors of owning handles.
Handle make_dataspace(const std::vector<hsize_t>& dims);  ///< empty dims: scalar dataspace
Handle copy_type(hid_t type);
/// Memory type of std::complex<double>: h5py's compound {r: float64 at 0, i: float64 at 8}.
Handle complex_memory_type();
/// File type of complex values: {r, i} as little-endian IEEE float64, what h5py writes.
Handle complex_file_type();
/// Variable-length UTF-8 string type (what h5py writes for a Python str).
Handle string_type();

/// @brief A numeric array read from a dataset: real (float or integer classes, converted to
/// double) or complex (compound {r, i}); C order, `dims` empty for a scalar dataset.
struct NumericArray {
  std::vector<hsize_t> dims;
  bool is_complex = false;
  std::vector<double> real;                ///< when !is_complex
  std::vector<std::complex<double>> cplx;  ///< when is_complex

  std::size_t count() const { return is_complex ? cplx.size() : real.size(); }
  /// The values as Scalar; real values are promoted to complex. Asking for double from a
  /// complex array is a logic error of the caller (it decides the scalar type first).
  template <class Scalar>
  std::vector<Scalar> take();
};

/// Shape as text, "(3, 4)", "() (scalar)" for rank 0.
std::string shape_text(const std::vector<hsize_t>& dims);

/// @brief Reads one HDF5 file opened read-only; every failure is an InputError that names the
/// file and the object, what was expected and what was found. `kind` ("problem", …) is used in
/// messages only.
class FileReader {
 public:
  /// Throws InputError if the file does not exist, is not HDF5 or cannot be opened.
  FileReader(const std::string& path, const std::string& kind);

  const std::string& path() const { return path_; }
  /// Throws InputError "<path>: <object>: <message>".
  [[noreturn]] void fail(const std::string& object, const std::string& message) const;

  /// True if a dataset `name` (a path from the root, e.g. "generator/h1") exists; throws if the
  /// name exists but is not a dataset.
  bool has_dataset(const std::string& name) const;
  /// True if a group `name` exists; throws if the name exists but is not a group.
  bool has_group(const std::string& name) const;
  /// True if the object `object` ("/" for the root) has attribute `name`.
  bool has_attribute(const std::string& object, const std::string& name) const;

  /// Reads a numeric dataset (float/integer class, or compound {r, i} of those), checks that
  /// every value is finite. Throws if it is missing or of another class.
  NumericArray read_numeric(const std::string& name) const;
  /// Reads an integer dataset (any integer class) of rank 1.
  std::vector<std::int64_t> read_integers(const std::string& name) const;

  /// Scalar attributes (a 1-element array is accepted too). Throw if missing or of the wrong
  /// class; the optional variants return nullopt when the attribute is missing.
  std::string string_attribute(const std::string& object, const std::string& name) const;
  std::optional<std::string> optional_string_attribute(const std::string& object,
                                                       const std::string& name) const;
  std::int64_t integer_attribute(const std::string& object, const std::string& name) const;
  std::uint64_t unsigned_attribute(const std::string& object, const std::string& name) const;
  double float_attribute(const std::string& object, const std::string& name) const;

  /// Checks the root attributes `format` (optional; if present it must equal `format`) and
  /// `format_version` (required, an integer equal to `version`).
  void check_format(const std::string& format, std::int64_t version) const;

 private:
  /// Opens attribute `name` of `object`, checking that it exists, is scalar (or one element)
  /// and of one of the classes `want` (described as `want_text` in messages).
  Handle open_attribute(const std::string& object, const std::string& name,
                        const std::vector<H5T_class_t>& want, const char* want_text) const;
  /// Whether every component of the path `name` exists as a link.
  bool link_exists(const std::string& name) const;
  /// The kind of object at `name` (H5I_DATASET, H5I_GROUP, …).
  H5I_type_t object_type(const std::string& name) const;
  std::string path_;
  std::string kind_;
  Handle file_;
};

/// @brief Writes an HDF5 file atomically: the content is assembled in memory (HDF5's core
/// driver) and written to a temporary file in the same directory (created exclusively), which
/// commit() syncs and renames onto the target.
/// Without `force` an existing target is an OutputError (checked at construction and again,
/// without a race, when the file is linked into place). If commit() is not reached, the
/// destructor removes the temporary file.
class FileWriter {
 public:
  /// `expected_bytes`, the approximate size of the data, sizes the in-memory image.
  FileWriter(const std::string& path, bool force, std::size_t expected_bytes = 0);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void create_group(const std::string& name);
  /// Dataset `name` of shape `dims` (C order) from `data`: float64, or compound {r, i}.
  void write_real(const std::string& name, const std::vector<hsize_t>& dims, const double* data);
  void write_complex(const std::string& name, const std::vector<hsize_t>& dims,
                     const std::complex<double>* data);
  template <class Scalar>
  void write(const std::string& name, const std::vector<hsize_t>& dims, const Scalar* data) {
    if constexpr (is_complex_v<Scalar>) {
      write_complex(name, dims, data);
    } else {
      write_real(name, dims, data);
    }
  }
  /// Rank-1 int64 dataset.
  void write_integers(const std::string& name, const std::vector<std::int64_t>& values);

  /// Scalar attributes on object `object` ("/" for the root).
  void string_attribute(const std::string& object, const std::string& name,
                        const std::string& value);
  void integer_attribute(const std::string& object, const std::string& name, std::int64_t value);
  void unsigned_attribute(const std::string& object, const std::string& name, std::uint64_t value);
  void float_attribute(const std::string& object, const std::string& name, double value);

  /// Closes the file and moves it into place; throws OutputError on failure.
  void commit();

 private:
  void write_dataset(const std::string& name, const std::vector<hsize_t>& dims, hid_t file_type,
                     hid_t memory_type, const void* data);
  void write_attribute(const std::string& object, const std::string& name, hid_t file_type,
                       hid_t memory_type, const void* data);
  /// Writes `image` over the temporary file and flushes it to the disk; OutputError on failure.
  void write_durably(const std::vector<char>& image) const;
  std::string path_;
  std::string temp_path_;
  bool force_;
  bool committed_ = false;
  Handle file_;
};

/// Runs `body`, turning HDF5 library failures into InputError for a file being read (a corrupt
/// or truncated file is bad input) with the file named; other exceptions pass through.
template <class Body>
auto guarded_read(const std::string& path, Body&& body) -> decltype(body()) {
  ErrorPrintingOff quiet;
  try {
    return body();
  } catch (const LibraryError& e) {
    throw InputError(path + ": cannot read the file (corrupt or truncated?): " + e.what());
  }
}

/// Runs `body`, turning HDF5 library failures into OutputError for a file being written.
template <class Body>
void guarded_write(const std::string& path, Body&& body) {
  ErrorPrintingOff quiet;
  try {
    body();
  } catch (const LibraryError& e) {
    throw OutputError(path + ": cannot write the file: " + e.what());
  }
}

/// Converts sizes for HDF5 dimensions.
std::vector<hsize_t> to_dims(const std::vector<index_t>& shape);

}  // namespace pscr::io::detail

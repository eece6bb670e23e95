// File I/O of collbench with every failure reported: the system's reason (errno), never a
// silent short write. Bounded reads refuse an oversized file before reading it; writers go
// through file descriptors (write(2), fsync(2)); replacing a file writes it aside first
// (<name>.tmp.part), fsyncs it and renames it over the target, so that the target is always
// whole, and the aside file is removed on any failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/errors.hpp"

namespace collbench {

// Size caps of the files collbench reads (bench/README.md, "Limits").
inline constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{1} << 20;  // the YAML configuration: 1 MiB
inline constexpr std::uintmax_t kMaxMetaBytes = std::uintmax_t{64} << 20;   // a launch's metadata JSON: 64 MiB
inline constexpr std::size_t kMaxJsonDepth = 64;  // nesting of any JSON collbench reads

// Why read_bounded() failed: errno (err != 0), or a size over the limit (too_large), or not
// a regular file.
struct ReadFailure {
  int err = 0;
  bool too_large = false, not_regular = false;
  std::uintmax_t size = 0;  // when too_large
  std::string reason() const;  // "No such file or directory", "1.5 GiB, over the 64 MiB limit", ...
};

// The whole of `path` into `out` (true), or false with `why` filled: the size is checked
// (fstat) before reading, and again while reading (a file that grows).
bool read_bounded(const std::filesystem::path& path, std::uintmax_t limit, std::string& out, ReadFailure& why);

// "12 bytes", "1.5 MiB", "3.0 GiB".
std::string format_file_size(std::uintmax_t bytes);

// The deepest nesting of arrays and objects in JSON text (brackets inside strings do not
// count); computed without recursion, so that it is safe on any input.
std::size_t json_depth(std::string_view text);

// A file open for writing. Every failure is an IoError naming the path and the system's reason.
class OutFile {
 public:
  OutFile() = default;
  // A new or truncated file.
  static OutFile create(const std::filesystem::path& path);
  // An existing file cut to `size` bytes, positioned at its end (to append).
  static OutFile truncate_to(const std::filesystem::path& path, std::uintmax_t size);
  OutFile(OutFile&& o) noexcept;
  OutFile& operator=(OutFile&& o) noexcept;
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile();  // closes without a check (use close() for one)

  bool is_open() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }
  void write(std::string_view data);  // all of it (partial writes and EINTR continued)
  void sync();                         // fsync
  void close();                        // close, reporting a late write error

 private:
  OutFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

// `path` + ".part": where a replacement of `path` is written before it is renamed over it.
std::filesystem::path part_path(const std::filesystem::path& path);

// Writes `text` to part_path(path), fsyncs it and renames it over `path` (then fsyncs the
// directory). On any failure the part file is removed and an IoError thrown; `path` is unchanged.
void replace_file(const std::filesystem::path& path, std::string_view text);

// rename(2) with an IoError on failure.
void rename_file(const std::filesystem::path& from, const std::filesystem::path& to);

// Removes `path` if it exists; failures are ignored (a cleanup on the way out).
void remove_quietly(const std::filesystem::path& path);

// fsync of a directory, so that renames in it survive a crash (best effort: some file
// systems refuse it).
void sync_directory(const std::filesystem::path& dir);

}  // namespace collbench

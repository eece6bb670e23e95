#include "output/fileio.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace collbench {

namespace fs = std::filesystem;

std::string format_file_size(std::uintmax_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string ReadFailure::reason() const {
  if (too_large) return format_file_size(size) + ", over the limit";
  if (not_regular) return "not a regular file";
  return std::strerror(err);
}

bool read_bounded(const fs::path& path, std::uintmax_t limit, std::string& out, ReadFailure& why) {
  why = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why.err = errno;
    return false;
  }
  struct stat st{};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok) why.err = errno;
  else if (!S_ISREG(st.st_mode)) ok = false, why.not_regular = true;
  else if (static_cast<std::uintmax_t>(st.st_size) > limit)
    ok = false, why.too_large = true, why.size = static_cast<std::uintmax_t>(st.st_size);
  if (ok) {
    out.clear();
    out.reserve(static_cast<std::size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ok = false, why.err = errno;
        break;
      }
      if (n == 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > limit) {  // grew while being read
        ok = false, why.too_large = true, why.size = out.size();
        break;
      }
    }
  }
  ::close(fd);
  if (!ok) out.clear();
  return ok;
}

std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escape = false;
  for (const char c : text) {
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// ------------------------------------------------------------------ OutFile

OutFile OutFile::create(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw io_error("create", path.string(), errno);
  return OutFile(fd, path);
}

OutFile OutFile::truncate_to(const fs::path& path, std::uintmax_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw io_error("open", path.string(), errno);
  OutFile f(fd, path);
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) throw io_error("truncate", path.string(), errno);
  if (::lseek(fd, 0, SEEK_END) < 0) throw io_error("seek in", path.string(), errno);
  return f;
}

OutFile::OutFile(OutFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

OutFile& OutFile::operator=(OutFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

OutFile::~OutFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutFile::write(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw io_error("write", path_.string(), errno);
    if (n == 0) throw io_error("write", path_.string(), ENOSPC);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutFile::sync() {
  if (::fsync(fd_) != 0) throw io_error("flush (fsync)", path_.string(), errno);
}

void OutFile::close() {
  if (fd_ < 0) return;
  const int rc = ::close(std::exchange(fd_, -1));
  if (rc != 0 && errno != EINTR) throw io_error("close", path_.string(), errno);
}

// ------------------------------------------------------------------ whole files

fs::path part_path(const fs::path& path) { return fs::path(path.string() + ".part"); }

void replace_file(const fs::path& path, std::string_view text) {
  const fs::path part = part_path(path);
  try {
    OutFile f = OutFile::create(part);
    f.write(text);
    f.sync();
    f.close();
    rename_file(part, path);
  } catch (...) {
    remove_quietly(part);
    throw;
  }
  sync_directory(path.parent_path());
}

void rename_file(const fs::path& from, const fs::path& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw io_error("rename " + from.string() + " to", to.string(), errno);
}

void remove_quietly(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace collbench

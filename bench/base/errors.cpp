#include "base/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace collbench {

std::string io_fix(int err) {
  switch (err) {
    case ENOSPC: return "free space and re-run: finished points are kept";
    case EDQUOT: return "free space within the quota and re-run: finished points are kept";
    case EACCES:
    case EPERM: return "check the permissions of --out (or use another --out) and re-run: finished points are kept";
    case EROFS: return "use a writable --out: finished points are kept";
    case EMFILE:
    case ENFILE: return "raise the open-file limit (ulimit -n) and re-run: finished points are kept";
    default: return "fix the cause and re-run: finished points are kept";
  }
}

IoError io_error(const std::string& action, const std::string& path, int err, const std::string& fix) {
  return IoError("cannot " + action + " " + path + ": " + std::strerror(err) + " (" + (fix.empty() ? io_fix(err) : fix) +
                 ")");
}

namespace {

// The escaped form of byte c when it is a control character, else "".
std::string escaped(unsigned char c) {
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
  }
  if (c < 0x20 || c == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    return buf;
  }
  return "";
}

}  // namespace

std::string excerpt(std::string_view text, std::size_t limit) {
  // Up to `limit` code points; when more follow, the last three are replaced by "...".
  const std::size_t keep = limit >= 3 ? limit - 3 : 0;
  std::string out, cut;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool continuation = (c & 0xc0) == 0x80;
    if (!continuation) {
      if (chars == keep) cut = out;
      if (chars == limit) return cut + "...";
      ++chars;
    }
    const std::string e = escaped(c);
    out += e.empty() ? std::string(1, static_cast<char>(c)) : e;
  }
  return out;
}

std::string quote(std::string_view text) { return "\"" + excerpt(text) + "\""; }

std::string one_line(std::string_view message, std::size_t limit) {
  std::string out;
  for (const char ch : message) {
    const std::string e = escaped(static_cast<unsigned char>(ch));
    out += e.empty() ? std::string(1, ch) : e;
  }
  if (out.size() <= limit) return out;
  std::size_t at = limit > 3 ? limit - 3 : 0;
  while (at > 0 && (static_cast<unsigned char>(out[at]) & 0xc0) == 0x80) --at;  // not inside a UTF-8 character
  return out.substr(0, at) + "...";
}

}  // namespace collbench

// Writing the generated files of a deployment: each file is written to a
// temporary beside it, fsynced and renamed into place, so a reader never sees
// half a deploy.sh; a fresh --out directory is built beside its target and
// renamed in whole. Modes are set explicitly (0755 for scripts, 0644 for the
// rest), independent of the umask. In an existing directory, the files of
// deploy's own set that the new deployment does not write are removed.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy/deploy.h"

namespace gpuplan::deploy {

namespace fs = std::filesystem;

Status write_files(const std::string& dir, const std::vector<GeneratedFile>& files_to_write) {
  std::error_code ec;
  const fs::path target(dir);
  auto write_one = [](const fs::path& path, const GeneratedFile& f) -> Status {
    const fs::path tmp = path.parent_path() / ("." + f.name + ".tmp-" + std::to_string(::getpid()));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, f.executable ? 0755 : 0644);
    if (fd < 0) return unavailable("cannot write " + tmp.string(), Where{tmp.string(), 0, 0, ""});
    size_t done = 0;
    while (done < f.content.size()) {
      const ssize_t n = ::write(fd, f.content.data() + done, f.content.size() - done);
      if (n <= 0) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return unavailable("cannot write " + tmp.string(), Where{tmp.string(), 0, 0, ""});
      }
      done += static_cast<size_t>(n);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    ::chmod(tmp.c_str(), f.executable ? 0755 : 0644);  // independent of the umask
    if (!synced || std::rename(tmp.c_str(), path.c_str()) != 0) {
      ::unlink(tmp.c_str());
      return unavailable("cannot write " + path.string(), Where{path.string(), 0, 0, ""});
    }
    return {};
  };

  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec)) {
      return unavailable("--out " + dir + " exists and is not a directory", Where{dir, 0, 0, ""});
    }
    for (const GeneratedFile& f : files_to_write) {
      GPUPLAN_RETURN_IF_ERROR(write_one(target / f.name, f));
    }
    // Then the files an earlier deployment left that this one does not
    // write (a Linux cloud-init.yaml beside a Windows setup.ps1): deploy.sh
    // would not read them, but a user would. Only deploy's own names; any
    // other file in the directory is the user's.
    for (const char* name : kGeneratedFileNames) {
      const bool written = std::any_of(files_to_write.begin(), files_to_write.end(),
                                       [&](const GeneratedFile& f) { return f.name == name; });
      if (written || !fs::exists(target / name, ec)) continue;
      if (!fs::remove(target / name, ec)) {
        return unavailable(
            "cannot remove the stale " + (target / name).string() + ": " + ec.message(),
            Where{(target / name).string(), 0, 0, ""});
      }
    }
    return {};
  }
  // A fresh directory: build it beside the target, then rename it into place.
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  const fs::path staging =
      parent / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec)) {
    return unavailable("cannot create " + staging.string() + ": " + ec.message(),
                       Where{dir, 0, 0, ""});
  }
  for (const GeneratedFile& f : files_to_write) {
    auto st = write_one(staging / f.name, f);
    if (!st) {
      fs::remove_all(staging, ec);
      return st;
    }
  }
  if (std::rename(staging.c_str(), target.c_str()) != 0) {
    fs::remove_all(staging, ec);
    return unavailable("cannot create " + dir, Where{dir, 0, 0, ""});
  }
  return {};
}

}  // namespace gpuplan::deploy

// `gpuplan serve` as a user runs it: the real binary, which loads the server
// from gpuplan-serve.so beside it, answers HTTP on loopback and stops cleanly
// on SIGTERM. (The routes themselves are tested in src/server/server_test.cc.)
#include <cstdio>
#include <string>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

// GET path from 127.0.0.1:port; the whole response, "" on failure.
std::string http_get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

TEST(ServeCli, RealBinaryServesHealthAndStopsOnSigterm) {
  const std::string db = temp_dir() + "/none.db";
  int out_pipe[2];
  ASSERT_EQ(::pipe(out_pipe), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(out_pipe[1], 1);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::execl(GPUPLAN_BIN, GPUPLAN_BIN, "--db", db.c_str(), "serve", "--port", "0",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  // "gpuplan: serving on http://127.0.0.1:PORT/"
  FILE* out = ::fdopen(out_pipe[0], "r");
  char line[256] = {0};
  const bool got_line = std::fgets(line, sizeof line, out) != nullptr;
  int port = 0;
  if (got_line) std::sscanf(line, "gpuplan: serving on http://127.0.0.1:%d/", &port);
  std::string health = port > 0 ? http_get(port, "/api/health") : "";
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  std::fclose(out);
  ASSERT_TRUE(got_line) << "no 'serving on' line";
  ASSERT_GT(port, 0) << line;
  EXPECT_NE(health.find("200 OK"), std::string::npos) << health;
  EXPECT_NE(health.find("\"ok\""), std::string::npos) << health;
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace gpuplan::e2e

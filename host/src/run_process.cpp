#include "run_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace metalsim::host {
namespace {

// The read end of a pipe whose write end is the child's stdout and stderr.
struct OutputPipe {
  int fds[2] = {-1, -1};
  OutputPipe() {
    if (pipe2(fds, O_CLOEXEC) != 0) fds[0] = fds[1] = -1;
  }
  ~OutputPipe() {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }
  bool ok() const { return fds[0] >= 0; }
  void close_write() {
    close(fds[1]);
    fds[1] = -1;
  }
};

std::string read_all(int fd) {
  std::string text;
  char chunk[4096];
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0) {
      text.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv) {
  ProcessResult result;
  OutputPipe out;
  if (!out.ok()) {
    result.failure = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    result.failure = "cannot run " + argv[0] + ": " + std::strerror(spawned);
    return result;
  }
  out.close_write();
  result.output = read_all(out.fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.failure = argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status));
  }
  return result;
}

}  // namespace metalsim::host

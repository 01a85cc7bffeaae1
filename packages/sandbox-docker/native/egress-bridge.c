/*
 * egress-bridge: the sandbox's end of the egress proxy.
 *
 *   egress-bridge PORT SOCKET [COMMAND ARGS...]
 *
 * A sandbox with an egress allowlist has no network (Docker's `none`, or gVisor's own
 * `--network=none`); the platform serves an HTTP proxy on a Unix socket in a host directory
 * mounted into the container. This program listens on 127.0.0.1:PORT inside the container and
 * copies each connection to and from SOCKET, so `HTTP_PROXY=http://127.0.0.1:PORT` works for any
 * tool. With a COMMAND, the bridge forks: the child serves, the parent becomes COMMAND (the
 * container's keep-alive, keeping PID 1), so no shell is needed to start both. Built static
 * (`gcc -static -O2`) so it runs in any image: busybox, Debian, Alpine.
 *
 * One process per connection (fork): small, and a connection that fails (the pids limit of a
 * fork bomb, say) fails alone. Children are reaped automatically (SIGCHLD ignored).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int write_all(int fd, const char *buf, ssize_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, (size_t)len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    buf += n;
    len -= n;
  }
  return 0;
}

/* Copies both ways until both sides have ended; half-closes pass through. */
static void relay(int a, int b) {
  char buf[32768];
  int open_a = 1, open_b = 1;
  while (open_a || open_b) {
    struct pollfd fds[2] = {{a, open_a ? POLLIN : 0, 0}, {b, open_b ? POLLIN : 0, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; i++) {
      int from = i == 0 ? a : b, to = i == 0 ? b : a;
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(from, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        shutdown(to, SHUT_WR);
        if (i == 0) open_a = 0; else open_b = 0;
        if (n < 0) return;
        continue;
      }
      if (write_all(to, buf, n) < 0) return;
    }
  }
}

static int connect_socket(const char *path) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof addr.sun_path) return -1;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void serve(int port, const char *path) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 64) < 0) {
    perror("egress-bridge: listen");
    _exit(1);
  }
  signal(SIGCHLD, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  for (;;) {
    int client = accept(listener, NULL, NULL);
    if (client < 0) continue;
    pid_t pid = fork();
    if (pid == 0) {
      close(listener);
      int upstream = connect_socket(path);
      if (upstream >= 0) relay(client, upstream);
      _exit(0);
    }
    close(client);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: egress-bridge PORT SOCKET [COMMAND ARGS...]\n");
    return 2;
  }
  int port = atoi(argv[1]);
  if (port <= 0 || port > 65535) {
    fprintf(stderr, "egress-bridge: bad port %s\n", argv[1]);
    return 2;
  }
  if (argc == 3) {
    serve(port, argv[2]);
    return 0;
  }
  pid_t pid = fork();
  if (pid == 0) {
    /* The bridge leaves the command's process group: signals meant for it stay with it. */
    setsid();
    serve(port, argv[2]);
  }
  execvp(argv[3], argv + 3);
  perror("egress-bridge: exec");
  return 127;
}

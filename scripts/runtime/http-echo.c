/*
 * kubelet-ts test HTTP server (the http-echo image's default command).
 * Answers every request on every path with `200 OK` and the body `ok`, logs
 * one line per request to stdout, exits 0 on SIGINT/SIGTERM (it usually runs
 * as PID 1, where the default dispositions would ignore them).
 *
 *   http-echo [port]        port defaults to $PORT, then 8080
 *
 * One connection at a time with a short read timeout: enough for probes and
 * tests, and no dependency on anything in the image.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static void on_terminate(int sig) {
  (void)sig;
  _exit(0);
}

static int parse_port(const char *text) {
  char *end = NULL;
  long port = strtol(text, &end, 10);
  if (end == text || *end != '\0' || port < 1 || port > 65535) {
    return -1;
  }
  return (int)port;
}

/* Prefer a dual-stack IPv6 socket; pods without IPv6 fall back to IPv4. */
static int listen_on(int port) {
  int one = 1;
  int zero = 0;
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd >= 0) {
    struct sockaddr_in6 addr6;
    memset(&addr6, 0, sizeof(addr6));
    addr6.sin6_family = AF_INET6;
    addr6.sin6_addr = in6addr_any;
    addr6.sin6_port = htons((unsigned short)port);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (bind(fd, (struct sockaddr *)&addr6, sizeof(addr6)) == 0 && listen(fd, 64) == 0) {
      return fd;
    }
    close(fd);
  }
  fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return -1;
  }
  struct sockaddr_in addr4;
  memset(&addr4, 0, sizeof(addr4));
  addr4.sin_family = AF_INET;
  addr4.sin_addr.s_addr = htonl(INADDR_ANY);
  addr4.sin_port = htons((unsigned short)port);
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, (struct sockaddr *)&addr4, sizeof(addr4)) != 0 || listen(fd, 64) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void serve(int conn) {
  char request[4096];
  size_t used = 0;
  struct timeval timeout = {2, 0};
  setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  /* Read the request head (up to the blank line); the body is ignored. */
  while (used < sizeof(request) - 1) {
    ssize_t n = read(conn, request + used, sizeof(request) - 1 - used);
    if (n <= 0) {
      break;
    }
    used += (size_t)n;
    request[used] = '\0';
    if (strstr(request, "\r\n\r\n") != NULL || strstr(request, "\n\n") != NULL) {
      break;
    }
  }
  request[used] = '\0';
  size_t line_len = strcspn(request, "\r\n");
  request[line_len] = '\0';
  printf("%s\n", line_len > 0 ? request : "(empty request)");
  fflush(stdout);

  const int head = strncmp(request, "HEAD ", 5) == 0;
  const char *response =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  size_t length = strlen(response) - (head ? 2 : 0);
  size_t sent = 0;
  while (sent < length) {
    ssize_t n = write(conn, response + sent, length - sent);
    if (n <= 0) {
      break;
    }
    sent += (size_t)n;
  }
  shutdown(conn, SHUT_WR);
  close(conn);
}

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : getenv("PORT");
  int port = text != NULL ? parse_port(text) : 8080;
  if (port < 0) {
    fprintf(stderr, "http-echo: invalid port %s\n", text);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, on_terminate);
  signal(SIGTERM, on_terminate);

  int fd = listen_on(port);
  if (fd < 0) {
    fprintf(stderr, "http-echo: cannot listen on port %d: %s\n", port, strerror(errno));
    return 1;
  }
  printf("http-echo: listening on port %d\n", port);
  fflush(stdout);
  for (;;) {
    int conn = accept(fd, NULL, NULL);
    if (conn < 0) {
      if (errno == EINTR) {
        continue;
      }
      perror("http-echo: accept");
      continue;
    }
    serve(conn);
  }
}

/*
 * kubelet-ts test pause image: the process that holds a pod sandbox's
 * namespaces. Same contract as the upstream Kubernetes pause container:
 * exit 0 on SIGINT/SIGTERM, reap every child on SIGCHLD (it is PID 1 of the
 * pod's PID namespace when the namespace is shared), otherwise sleep forever.
 * Built with `gcc -static` by scripts/test-runtime.sh.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_terminate(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  int saved_errno = errno;
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  errno = saved_errno;
}

static int install(int sig, void (*handler)(int), int flags) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = handler;
  action.sa_flags = flags;
  sigemptyset(&action.sa_mask);
  return sigaction(sig, &action, NULL);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-v") == 0) {
    puts("kubelet-ts-pause");
    return 0;
  }
  if (getpid() != 1) {
    fputs("pause: warning: not running as PID 1\n", stderr);
  }
  if (install(SIGINT, on_terminate, 0) != 0 || install(SIGTERM, on_terminate, 0) != 0 ||
      install(SIGCHLD, on_child, SA_NOCLDSTOP | SA_RESTART) != 0) {
    perror("pause: sigaction");
    return 1;
  }
  for (;;) {
    pause();
  }
}

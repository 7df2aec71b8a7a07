#define _GNU_SOURCE
#include "CSandboxSupport.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Calls that end the worker at once: a parser has no business with them. */
static const int killed_calls[] = {
  SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen),
  SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg),
  SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(ptrace),
  SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(pwrite64), SCMP_SYS(pwritev),
  SCMP_SYS(pwritev2), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(chroot), SCMP_SYS(pivot_root),
  SCMP_SYS(setuid), SCMP_SYS(setgid), SCMP_SYS(setreuid), SCMP_SYS(setregid), SCMP_SYS(setresuid),
  SCMP_SYS(setresgid), SCMP_SYS(kexec_load), SCMP_SYS(init_module), SCMP_SYS(finit_module),
  SCMP_SYS(delete_module), SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
  SCMP_SYS(io_uring_setup), SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
};

/* Calls that change the file system by name, and new sockets: refused (EPERM), so that a
   library that tries one sees an ordinary error (glibc's syslog, which libdispatch calls when
   a thread's priority cannot be raised, opens a socket to /dev/log). */
static const int refused_calls[] = {
  SCMP_SYS(socket), SCMP_SYS(socketpair),
  SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
  SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir), SCMP_SYS(link), SCMP_SYS(linkat),
  SCMP_SYS(symlink), SCMP_SYS(symlinkat), SCMP_SYS(chmod), SCMP_SYS(fchmodat), SCMP_SYS(chown),
  SCMP_SYS(fchownat), SCMP_SYS(lchown), SCMP_SYS(truncate), SCMP_SYS(mknod), SCMP_SYS(mknodat),
  SCMP_SYS(utimensat), SCMP_SYS(utimes), SCMP_SYS(utime), SCMP_SYS(futimesat), SCMP_SYS(creat),
  SCMP_SYS(setxattr), SCMP_SYS(lsetxattr), SCMP_SYS(removexattr), SCMP_SYS(lremovexattr),
  SCMP_SYS(memfd_create), SCMP_SYS(ftruncate), SCMP_SYS(fallocate),
};

/* Open flags that ask to change a file. */
static const unsigned long long writing_flags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND };

int shelf_sandbox_enter(unsigned long long address_space_bytes) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  struct rlimit none = { 0, 0 };
  setrlimit(RLIMIT_CORE, &none);
  if (address_space_bytes > 0) {
    struct rlimit space = { address_space_bytes, address_space_bytes };
    if (setrlimit(RLIMIT_AS, &space) != 0) return -errno;
  }
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == NULL) return -ENOMEM;
  /* Every thread of the process, not only the calling one: Swift's runtime runs the worker
     on a thread of its pool, beside the main thread and others. */
  int rc = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
  for (size_t i = 0; rc == 0 && i < sizeof killed_calls / sizeof killed_calls[0]; i++) {
    if (killed_calls[i] >= 0) rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, killed_calls[i], 0);
  }
  for (size_t i = 0; rc == 0 && i < sizeof refused_calls / sizeof refused_calls[0]; i++) {
    if (refused_calls[i] >= 0) rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), refused_calls[i], 0);
  }
  /* Threads only: a clone without CLONE_THREAD makes a new process. clone3 hides its flags in
     memory the filter cannot read, so it reports ENOSYS and glibc falls back to clone. */
  if (rc == 0)
    rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* Reading opens only; openat2 hides its flags the same way as clone3. */
  for (size_t i = 0; rc == 0 && i < sizeof writing_flags / sizeof writing_flags[0]; i++) {
    rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat), 1,
                          SCMP_A2(SCMP_CMP_MASKED_EQ, writing_flags[i], writing_flags[i]));
    if (rc == 0)
      rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open), 1,
                            SCMP_A1(SCMP_CMP_MASKED_EQ, writing_flags[i], writing_flags[i]));
  }
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
  /* Writes reach the reply pipe (1) and stderr (2) only. */
  int writes[] = { SCMP_SYS(write), SCMP_SYS(writev) };
  for (size_t i = 0; rc == 0 && i < 2; i++) {
    rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, writes[i], 1, SCMP_A0(SCMP_CMP_EQ, 0));
    if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, writes[i], 1, SCMP_A0(SCMP_CMP_GT, 2));
  }
  if (rc == 0) rc = seccomp_load(filter);
  seccomp_release(filter);
  return rc;
}

int shelf_sandbox_limit_cpu(unsigned int seconds) {
  /* The CPU used so far, from the vDSO (no system call); the limit is moved only when fewer
     than `seconds` are left before it, to twice that: every file gets at least `seconds`,
     and most files cost no setrlimit. */
  static rlim_t limit = 0;
  struct timespec used;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &used) != 0) return -1;
  rlim_t now = (rlim_t)used.tv_sec + 1;
  if (limit != 0 && limit >= now + seconds) return 0;
  struct rlimit next = { now + 2 * (rlim_t)seconds, now + 2 * (rlim_t)seconds + 5 };
  if (setrlimit(RLIMIT_CPU, &next) != 0) return -1;
  limit = next.rlim_cur;
  return 0;
}

static void crash_handler(int signal_number) {
  if (errno == ENOMEM) _exit(SHELF_WORKER_EXIT_OUT_OF_MEMORY);
  /* SA_RESETHAND restored the default action (and SA_NODEFER leaves the signal unblocked):
     the process dies with its own signal now, whether it came from a fault or a raise. */
  raise(signal_number);
}

void shelf_sandbox_install_crash_handler(void) {
  static char alternate_stack[1 << 16];
  stack_t stack = { .ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0 };
  sigaltstack(&stack, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = crash_handler;
  action.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  int signals[] = { SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT };
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
}

/* Room for the descriptors of one message. */
typedef union {
  char buffer[CMSG_SPACE(sizeof(int) * SHELF_MAX_PASSED_DESCRIPTORS)];
  struct cmsghdr align;
} descriptor_space;

/* A message of one part, `bytes`, with room for descriptors in `control`. */
static struct msghdr one_part_message(struct iovec *part, descriptor_space *control) {
  struct msghdr message;
  memset(&message, 0, sizeof message);
  memset(control, 0, sizeof *control);
  message.msg_iov = part;
  message.msg_iovlen = 1;
  message.msg_control = control->buffer;
  message.msg_controllen = sizeof control->buffer;
  return message;
}

ssize_t shelf_send_with_descriptors(int socket, const void *bytes, size_t length, const int *descriptors,
                                    size_t count) {
  if (count > SHELF_MAX_PASSED_DESCRIPTORS) {
    errno = EINVAL;
    return -1;
  }
  struct iovec part = { (void *)bytes, length };
  descriptor_space control;
  struct msghdr message = one_part_message(&part, &control);
  if (count == 0) {
    message.msg_control = NULL;
    message.msg_controllen = 0;
  } else {
    message.msg_controllen = CMSG_SPACE(sizeof(int) * count);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(header), descriptors, sizeof(int) * count);
  }
  ssize_t sent;
  do {
    sent = sendmsg(socket, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent;
}

ssize_t shelf_receive_with_descriptors(int socket, void *bytes, size_t capacity, int *descriptors,
                                       size_t capacity_descriptors, size_t *count) {
  *count = 0;
  struct iovec part = { bytes, capacity };
  descriptor_space control;
  struct msghdr message = one_part_message(&part, &control);
  ssize_t received;
  do {
    received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  } while (received < 0 && errno == EINTR);
  if (received < 0) return received;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    size_t carried = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < carried; i++) {
      int descriptor;
      memcpy(&descriptor, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      if (*count < capacity_descriptors) descriptors[(*count)++] = descriptor;
      else close(descriptor);
    }
  }
  if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
    for (size_t i = 0; i < *count; i++) close(descriptors[i]);
    *count = 0;
    errno = EMSGSIZE;
    return -1;
  }
  return received;
}

int shelf_pipe_cloexec(int descriptors[2]) { return pipe2(descriptors, O_CLOEXEC); }

int shelf_spawn_close_from(void *actions, int lowest) {
  return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}

static void *watch_socket(void *argument) {
  struct pollfd watched = { (int)(intptr_t)argument, 0, 0 };
  for (;;) {
    int ready = poll(&watched, 1, -1);
    if (ready > 0 && (watched.revents & (POLLHUP | POLLERR | POLLNVAL))) _exit(0);
    if (ready < 0 && errno != EINTR) _exit(0);
  }
  return NULL;
}

int shelf_exit_when_closed(int socket) {
  pthread_t thread;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attributes, 64 * 1024);
  int rc = pthread_create(&thread, &attributes, watch_socket, (void *)(intptr_t)socket);
  pthread_attr_destroy(&attributes);
  return rc;
}

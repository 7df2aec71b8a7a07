#define _GNU_SOURCE
#include "CSandboxSupport.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
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
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* The calls a worker makes (measured with `strace -f -c` on `shelf info` and `shelf index` over
   every kind of file in SampleMedia, FFmpeg, libheif, libvips and Chromaprint loaded on first
   use, and the Swift runtime's threads), allowed whatever their arguments. Everything not
   allowed here or below fails with EPERM. */
static const int allowed_calls[] = {
  /* Reading the descriptors it was handed, and files opened for reading (shared libraries). */
  SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(preadv), SCMP_SYS(preadv2),
  SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(stat),
  SCMP_SYS(lstat), SCMP_SYS(statx), SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(getdents64),
  SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(access), SCMP_SYS(faccessat),
  SCMP_SYS(faccessat2), SCMP_SYS(getcwd), SCMP_SYS(dup), SCMP_SYS(recvmsg), SCMP_SYS(recvfrom),
  SCMP_SYS(poll), SCMP_SYS(ppoll),
  /* libdispatch's event thread (Swift's runtime) waits on epoll, an eventfd and a timerfd. */
  SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(epoll_ctl),
  SCMP_SYS(epoll_create1), SCMP_SYS(eventfd2), SCMP_SYS(timerfd_create), SCMP_SYS(timerfd_settime),
  SCMP_SYS(timerfd_gettime),
  /* Memory. */
  SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap), SCMP_SYS(madvise),
  SCMP_SYS(brk), SCMP_SYS(membarrier), SCMP_SYS(get_mempolicy),
  /* Threads, signals to itself, time. */
  SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(set_tid_address),
  SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
  SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_getparam),
  SCMP_SYS(sched_getscheduler), SCMP_SYS(getpriority), SCMP_SYS(restart_syscall),
  SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid),
  SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
  SCMP_SYS(gettimeofday), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(getrandom),
  SCMP_SYS(getrlimit), SCMP_SYS(setrlimit), SCMP_SYS(getrusage), SCMP_SYS(uname),
  SCMP_SYS(sysinfo), SCMP_SYS(times), SCMP_SYS(exit), SCMP_SYS(exit_group),
};

/* Calls that end the worker at once: a parser has no business with the network, with new
   processes or programs, or with writing anywhere but its answers. */
static const int killed_calls[] = {
  SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4),
  SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg), SCMP_SYS(execve), SCMP_SYS(execveat),
  SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(pwrite64), SCMP_SYS(pwritev), SCMP_SYS(pwritev2),
};

/* Open flags that ask to change a file. */
#define WRITING_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* Drops every capability of the calling thread: the bounding set (when the thread may:
   CAP_SETPCAP, which only root has), the ambient set, then the permitted, effective and
   inheritable sets. */
static int drop_capabilities(void) {
  for (int capability = 0; prctl(PR_CAPBSET_READ, capability, 0, 0, 0) >= 0; capability++) {
    if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) {
      if (errno == EPERM) break;
      if (errno != EINVAL) return -errno;
    }
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -errno;
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
  memset(none, 0, sizeof none);
  if (syscall(SYS_capset, &header, none) != 0) return -errno;
  return 0;
}

/* The outcome of dropping a worker's capabilities before main (1: not a worker). */
static int early_drop = 1;

/* Capabilities belong to each thread, and the Swift runtime starts threads before a worker
   enters its sandbox: a worker (argv[1] SHELF_WORKER_ARGUMENT) drops them here, before main,
   while it is the only thread, so that no thread it ever has holds one. */
__attribute__((constructor)) static void drop_capabilities_of_worker(int argc, char **argv, char **envp) {
  (void)envp;
  if (argc >= 2 && strcmp(argv[1], SHELF_WORKER_ARGUMENT) == 0) early_drop = drop_capabilities();
}

/* The address-space limit a worker takes: its own choice, never above the soft or hard limit
   it inherited (raising the hard limit needs a privilege it does not have, and the soft limit
   is the user's). */
static rlim_t fitted_address_space(unsigned long long wanted) {
  struct rlimit inherited;
  if (getrlimit(RLIMIT_AS, &inherited) != 0) return (rlim_t)wanted;
  rlim_t fitted = (rlim_t)wanted;
  if (inherited.rlim_cur != RLIM_INFINITY && inherited.rlim_cur < fitted) fitted = inherited.rlim_cur;
  if (inherited.rlim_max != RLIM_INFINITY && inherited.rlim_max < fitted) fitted = inherited.rlim_max;
  return fitted;
}

int shelf_sandbox_enter(unsigned long long address_space_bytes) {
  struct rlimit none = { 0, 0 };
  setrlimit(RLIMIT_CORE, &none);
  if (address_space_bytes > 0) {
    rlim_t fitted = fitted_address_space(address_space_bytes);
    struct rlimit space = { fitted, fitted };
    if (setrlimit(RLIMIT_AS, &space) != 0) return -errno;
  }
  if (early_drop == 1) early_drop = drop_capabilities();
  if (early_drop != 0) return early_drop;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  /* What is not allowed fails with EPERM: a library that tries something else (glibc's
     syslog opens a socket to /dev/log when libdispatch cannot raise a thread's priority)
     sees an ordinary error. */
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (filter == NULL) return -ENOMEM;
  /* Every thread of the process, not only the calling one: Swift's runtime runs the worker
     on a thread of its pool, beside the main thread and others. */
  int rc = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
  for (size_t i = 0; rc == 0 && i < sizeof allowed_calls / sizeof allowed_calls[0]; i++) {
    if (allowed_calls[i] >= 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, allowed_calls[i], 0);
  }
  for (size_t i = 0; rc == 0 && i < sizeof killed_calls / sizeof killed_calls[0]; i++) {
    if (killed_calls[i] >= 0) rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, killed_calls[i], 0);
  }
  /* Threads only: a clone without CLONE_THREAD makes a new process. clone3 hides its flags in
     memory the filter cannot read, so it reports ENOSYS and glibc falls back to clone. */
  if (rc == 0)
    rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  if (rc == 0)
    rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* Opens for reading only; openat2 hides its flags the same way as clone3. */
  if (rc == 0)
    rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
                          SCMP_A2(SCMP_CMP_MASKED_EQ, WRITING_FLAGS, 0));
  if (rc == 0)
    rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
                          SCMP_A1(SCMP_CMP_MASKED_EQ, WRITING_FLAGS, 0));
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
  /* Writes reach the reply pipe (1) and stderr (2) only; anything else ends the worker. */
  int writes[] = { SCMP_SYS(write), SCMP_SYS(writev) };
  for (size_t i = 0; rc == 0 && i < 2; i++) {
    rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, writes[i], 1, SCMP_A0(SCMP_CMP_EQ, 1));
    if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, writes[i], 1, SCMP_A0(SCMP_CMP_EQ, 2));
    if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, writes[i], 1, SCMP_A0(SCMP_CMP_EQ, 0));
    if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, writes[i], 1, SCMP_A0(SCMP_CMP_GT, 2));
  }
  /* Signals to itself only (raise, abort, the crash handler): never to another process. */
  pid_t self = getpid();
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, self));
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, self));
  /* Its own limits only (the CPU limit moves per file). */
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A0(SCMP_CMP_EQ, 0));
  /* Descriptor flags, not owners or locks (F_SETOWN would aim SIGIO at another process). */
  int controls[] = { F_GETFD, F_SETFD, F_GETFL, F_DUPFD_CLOEXEC };
  for (size_t i = 0; rc == 0 && i < sizeof controls / sizeof controls[0]; i++) {
    rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, controls[i]));
  }
  /* Thread names (libdispatch names its threads). */
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_GET_NAME));
  /* Whether a descriptor is a terminal (libraries ask before they print). */
  if (rc == 0) rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS));
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
  /* The soft limit only: the worker has no privilege to raise a hard limit again, and the
     parent's wall clock ends a worker that ignores SIGXCPU. */
  struct rlimit next;
  if (getrlimit(RLIMIT_CPU, &next) != 0) return -1;
  next.rlim_cur = now + 2 * (rlim_t)seconds;
  if (next.rlim_max != RLIM_INFINITY && next.rlim_cur > next.rlim_max) next.rlim_cur = next.rlim_max;
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

int shelf_make_undumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : -errno; }

#ifdef SHELF_TEST_HOOKS
/* chattr's call (linux/fs.h, which clashes with sys/mount.h). */
#define SHELF_FS_IOC_SETFLAGS _IOW('f', 2, long)

/* Appends "name ERRNO" (or "name ok") to `report`. */
static void note(char *report, size_t capacity, const char *name, long result, int code) {
  size_t used = strlen(report);
  if (used + 1 >= capacity) return;
  const char *outcome = result >= 0 ? "ok" : strerrorname_np(code);
  snprintf(report + used, capacity - used, "%s%s %s", used > 0 ? ", " : "", name, outcome ? outcome : "?");
}

#define TRY(name, call)                                                                            \
  do {                                                                                             \
    errno = 0;                                                                                     \
    long result_ = (long)(call);                                                                   \
    note(report, capacity, name, result_, errno);                                                  \
  } while (0)

void shelf_sandbox_try_forbidden_calls(int descriptor, const char *path, int parent, int sibling, char *report,
                                       size_t capacity) {
  report[0] = 0;
  /* The parent's descriptors (the catalogue's among them), as an exploit would take them. */
  errno = 0;
  long pidfd = syscall(SYS_pidfd_open, parent, 0);
  note(report, capacity, "pidfd_open", pidfd, errno);
  long taken = -1;
  int code = 0;
  for (int target = 3; target < 64 && taken < 0; target++) {
    errno = 0;
    taken = syscall(SYS_pidfd_getfd, pidfd, target, 0);
    if (target == 3) code = errno;
  }
  note(report, capacity, "pidfd_getfd", taken, code);
  TRY("pidfd_send_signal", syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0));
  TRY("ptrace", syscall(SYS_ptrace, PTRACE_ATTACH, parent, 0, 0));
  char buffer[16];
  struct iovec local = { buffer, sizeof buffer };
  struct iovec remote = { (void *)4096, sizeof buffer };
  TRY("process_vm_readv", syscall(SYS_process_vm_readv, parent, &local, 1, &remote, 1, 0));
  TRY("process_vm_writev", syscall(SYS_process_vm_writev, parent, &local, 1, &remote, 1, 0));
  TRY("prlimit64", syscall(SYS_prlimit64, parent, RLIMIT_NOFILE, NULL, NULL));
  /* Signals to another process. */
  TRY("kill", kill(sibling, SIGKILL));
  TRY("tgkill", syscall(SYS_tgkill, sibling, sibling, SIGKILL));
  TRY("tkill", syscall(SYS_tkill, sibling, SIGKILL));
  TRY("fcntl F_SETOWN", fcntl(descriptor, F_SETOWN, sibling));
  /* A file by handle, opened for writing whatever the descriptor it came from. */
  struct {
    struct file_handle header;
    unsigned char bytes[MAX_HANDLE_SZ];
  } handle;
  memset(&handle, 0, sizeof handle);
  handle.header.handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  TRY("name_to_handle_at", name_to_handle_at(AT_FDCWD, path, &handle.header, &mount_id, 0));
  TRY("open_by_handle_at", open_by_handle_at(descriptor, &handle.header, O_RDWR));
  /* The file it was handed (read-only) and the same file by name: mode, owner, extended
     attributes, times, content. */
  struct timespec epoch[2] = { { 0, 0 }, { 0, 0 } };
  TRY("fchmod", fchmod(descriptor, 0777));
  TRY("fchown", fchown(descriptor, 65533, 65533));
  TRY("fsetxattr", fsetxattr(descriptor, "user.shelf-probe", "x", 1, 0));
  TRY("fremovexattr", fremovexattr(descriptor, "user.shelf-kept"));
  TRY("futimens", futimens(descriptor, epoch));
  TRY("ftruncate", ftruncate(descriptor, 0));
  TRY("fallocate", fallocate(descriptor, 0, 0, 1 << 20));
  TRY("ioctl FS_IOC_SETFLAGS", ioctl(descriptor, SHELF_FS_IOC_SETFLAGS, &(int){ 0x10 }));
  TRY("chmod", chmod(path, 0777));
  TRY("fchmodat", fchmodat(AT_FDCWD, path, 0777, 0));
  TRY("chown", chown(path, 65533, 65533));
  TRY("lchown", lchown(path, 65533, 65533));
  TRY("setxattr", setxattr(path, "user.shelf-probe", "x", 1, 0));
  TRY("removexattr", removexattr(path, "user.shelf-kept"));
  TRY("utimensat", utimensat(AT_FDCWD, path, epoch, 0));
  TRY("utimes", utimes(path, NULL));
  TRY("open for writing", syscall(SYS_open, path, O_WRONLY | O_TRUNC));
  TRY("openat for writing", openat(AT_FDCWD, path, O_RDWR));
  TRY("creat", syscall(SYS_creat, path, 0600));
  TRY("truncate", truncate(path, 0));
  TRY("unlink", unlink(path));
  TRY("memfd_create", syscall(SYS_memfd_create, "shelf", 0));
  /* Sockets, mounts, namespaces, keys, BPF, performance counters, io_uring, the clock: each
     with arguments that would fail otherwise than EPERM were the call let through. */
  TRY("socket", socket(AF_UNIX, SOCK_STREAM, 0));
  TRY("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, (int[2]){ -1, -1 }));
  TRY("mount", mount("none", "/nonexistent/shelf-probe", "tmpfs", 0, NULL));
  TRY("umount2", umount2("/nonexistent/shelf-probe", MNT_DETACH));
  TRY("unshare", unshare(CLONE_NEWUSER));
  TRY("setns", setns(-1, 0));
  TRY("keyctl", syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0));
  TRY("bpf", syscall(SYS_bpf, 0, NULL, 0));
  TRY("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
  TRY("io_uring_setup", syscall(SYS_io_uring_setup, 1, NULL));
  TRY("io_uring_enter", syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
  TRY("io_uring_register", syscall(SYS_io_uring_register, -1, 0, NULL, 0));
  TRY("clock_settime", syscall(SYS_clock_settime, CLOCK_REALTIME, NULL));
  TRY("setuid", syscall(SYS_setuid, 0));
}
#endif

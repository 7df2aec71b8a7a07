#ifndef CSANDBOX_SUPPORT_H
#define CSANDBOX_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

/* The sandbox an extraction worker runs in (see ShelfWorkers/ExtractionWorker.swift): what
   Swift cannot do itself (seccomp's filter rules, the CMSG macros of descriptor passing, an
   async-signal-safe crash handler). */

/* The argument that makes `shelf` an extraction worker. */
#define SHELF_WORKER_ARGUMENT "--extraction-worker"

/* The exit status of a worker that ran out of memory: its crash handler saw a trap right
   after an allocation failed (errno ENOMEM), which is how the Swift runtime and most C code
   die when malloc returns NULL under the address-space limit. */
#define SHELF_WORKER_EXIT_OUT_OF_MEMORY 86

/* Enters the sandbox: no core files; an address-space limit of `address_space_bytes` (0: none)
   or the lower limit the process inherited (never raised); every capability dropped (before
   main already, on every thread; the bounding set too when the process may, i.e. as root);
   no new privileges; then a seccomp
   filter (on every thread) that allows only what a worker does: read (the descriptors it was
   handed, files opened for reading), map memory, run threads, signal itself, set its own
   limits, write its answers to descriptors 1 (the reply pipe) and 2 (stderr). It kills the
   process on a network call (connect, bind, listen, accept, send*), exec, fork, a clone
   without CLONE_THREAD, a write to any other descriptor and any positional write; every other
   call fails with EPERM (clone3 and openat2, whose arguments it cannot read, with ENOSYS):
   opens for writing, sockets, signals to other processes, pidfd_*, ptrace, process_vm_*,
   handles, chmod/chown/xattr/time changes, mount, namespaces, keys, BPF, perf, io_uring, ….
   Returns 0, or -errno when a step failed. */
int shelf_sandbox_enter(unsigned long long address_space_bytes);

/* Makes this process (the parent of workers) non-dumpable: no core file, and neither a
   process of the same user nor a worker can ptrace it or take its descriptors (pidfd_getfd),
   whatever the filter. 0, or -errno. */
int shelf_make_undumpable(void);

/* Tests only: defined in debug builds alone (SHELF_TEST_HOOKS), and called only from
   ShelfWorkers/WorkerTestHooks.swift, compiled under the same condition. Makes, from inside a
   worker under its filter, the calls a worker that has been taken over would make against
   `descriptor` (the file it was handed), `path` (the same file by name), `parent` (whose
   descriptors hold the catalogue) and `sibling` (a process to signal), and writes "call ERRNO"
   (or "call ok") for each into `report`, separated by ", ". */
void shelf_sandbox_try_forbidden_calls(int descriptor, const char *path, int parent, int sibling, char *report,
                                       size_t capacity);

/* Gives the process at least `seconds` more CPU time and at most twice that (RLIMIT_CPU,
   soft limit: SIGXCPU when reached; the hard limit stays as inherited), for the file it reads
   next. 0 on success, -1 and errno otherwise. */
int shelf_sandbox_limit_cpu(unsigned int seconds);

/* Installs the crash handler that turns a trap after an allocation failure into the exit
   status SHELF_WORKER_EXIT_OUT_OF_MEMORY; other crashes keep their signal. */
void shelf_sandbox_install_crash_handler(void);

/* The most descriptors one message carries (SCM_MAX_FD is 253). */
#define SHELF_MAX_PASSED_DESCRIPTORS 64

/* Sends `length` bytes and `count` descriptors (SCM_RIGHTS, at most
   SHELF_MAX_PASSED_DESCRIPTORS) as one message on a SOCK_SEQPACKET socket. Returns what
   sendmsg returns (-1 and errno). */
ssize_t shelf_send_with_descriptors(int socket, const void *bytes, size_t length, const int *descriptors,
                                    size_t count);

/* Receives one message of at most `capacity` bytes and the descriptors sent with it (at most
   `capacity_descriptors`; their number in `count`). Returns the length (0 at end of stream),
   or -1 and errno. The received descriptors are close-on-exec; on a truncated message they
   are closed and errno is EMSGSIZE. */
ssize_t shelf_receive_with_descriptors(int socket, void *bytes, size_t capacity, int *descriptors,
                                       size_t capacity_descriptors, size_t *count);

/* Adds to `actions` the closing of every descriptor from `lowest` up in the child
   (posix_spawn_file_actions_addclosefrom_np, glibc 2.34): a worker inherits only the three
   it is given, not a descriptor another library of the parent left open across exec (whose
   holder would then wait for the worker to close it). 0, or an error number. */
int shelf_spawn_close_from(void *actions, int lowest);

/* Starts a thread that ends the process (status 0) when the other end of `socket` is closed:
   a worker whose parent died stops even while a parser hangs. 0, or an error number. */
int shelf_exit_when_closed(int socket);

/* pipe2(descriptors, O_CLOEXEC), which Swift's Glibc module leaves out (_GNU_SOURCE): both
   ends close-on-exec from the start, so a worker started by another thread cannot inherit
   them. */
int shelf_pipe_cloexec(int descriptors[2]);

#endif

#ifndef CSANDBOX_SUPPORT_H
#define CSANDBOX_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

/* The sandbox an extraction worker runs in (see ShelfCatalog/ExtractionWorker.swift): what
   Swift cannot do itself (seccomp's filter rules, the CMSG macros of descriptor passing, an
   async-signal-safe crash handler). */

/* The exit status of a worker that ran out of memory: its crash handler saw a trap right
   after an allocation failed (errno ENOMEM), which is how the Swift runtime and most C code
   die when malloc returns NULL under the address-space limit. */
#define SHELF_WORKER_EXIT_OUT_OF_MEMORY 86

/* Enters the sandbox: no new privileges, no core files, an address-space limit of
   `address_space_bytes` (0: none), then a seccomp filter that kills the process on any
   network call (socket, connect, bind, …), exec, fork, ptrace or process_vm_*; kills it on a
   write to any descriptor but 1 (the reply pipe) and 2 (stderr) and on any positional or
   vector write; fails with EPERM an open asking to write, create or truncate, and every
   call that changes the file system by name (unlink, rename, mkdir, chmod, link, …).
   Returns 0, or -errno when the filter could not be loaded. */
int shelf_sandbox_enter(unsigned long long address_space_bytes);

/* Gives the process at least `seconds` more CPU time and at most twice that (RLIMIT_CPU,
   soft limit: SIGXCPU when reached), for the file it reads next. 0 on success, -1 and errno
   otherwise. */
int shelf_sandbox_limit_cpu(unsigned int seconds);

/* Installs the crash handler that turns a trap after an allocation failure into the exit
   status SHELF_WORKER_EXIT_OUT_OF_MEMORY; other crashes keep their signal. */
void shelf_sandbox_install_crash_handler(void);

/* Sends `length` bytes and, when `descriptor` >= 0, that descriptor (SCM_RIGHTS) as one
   message on a SOCK_SEQPACKET socket. Returns what sendmsg returns (-1 and errno). */
ssize_t shelf_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor);

/* Receives one message of at most `capacity` bytes and the descriptor sent with it (-1 when
   none). Returns the length (0 at end of stream), or -1 and errno. The received descriptor is
   close-on-exec. */
ssize_t shelf_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor);

/* pipe2(descriptors, O_CLOEXEC), which Swift's Glibc module leaves out (_GNU_SOURCE): both
   ends close-on-exec from the start, so a worker started by another thread cannot inherit
   them. */
int shelf_pipe_cloexec(int descriptors[2]);

#endif

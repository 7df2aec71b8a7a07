#define _GNU_SOURCE
#include "CFileSupport.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef FICLONE
#define FICLONE _IOW(0x94, 9, int)
#endif

int shelf_start_writeback(int descriptor) {
  return sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int shelf_syncfs(int descriptor) { return syncfs(descriptor); }

long shelf_read_folder_entries(int descriptor, void *buffer, unsigned long size) {
  return (long)getdents64(descriptor, buffer, size);
}

int shelf_clone_file(int destination, int source) { return ioctl(destination, FICLONE, source); }

int shelf_rename_no_replace(const char *from, const char *to) {
  return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int shelf_renameat_no_replace(int from_folder, const char *from, int to_folder, const char *to) {
  return renameat2(from_folder, from, to_folder, to, RENAME_NOREPLACE);
}

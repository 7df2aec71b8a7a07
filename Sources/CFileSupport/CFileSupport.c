#define _GNU_SOURCE
#include "CFileSupport.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

int shelf_start_writeback(int descriptor) {
  return sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int shelf_syncfs(int descriptor) { return syncfs(descriptor); }

long shelf_read_folder_entries(int descriptor, void *buffer, unsigned long size) {
  return (long)getdents64(descriptor, buffer, size);
}

#ifndef CFILE_SUPPORT_H
#define CFILE_SUPPORT_H

/* Linux file calls that Swift's Glibc module does not export (they need _GNU_SOURCE). */

/* Starts writing a file's dirty pages to disk without waiting for them
   (sync_file_range with SYNC_FILE_RANGE_WRITE); 0 on success, -1 and errno otherwise. */
int shelf_start_writeback(int descriptor);

/* Flushes the filesystem that holds the open file or folder `descriptor` (syncfs): only that
   filesystem, not every one as sync() does; 0 on success, -1 and errno otherwise. */
int shelf_syncfs(int descriptor);

#endif

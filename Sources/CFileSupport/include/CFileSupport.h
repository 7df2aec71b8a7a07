#ifndef CFILE_SUPPORT_H
#define CFILE_SUPPORT_H

/* Linux file calls that Swift's Glibc module does not export (they need _GNU_SOURCE). */

/* Starts writing a file's dirty pages to disk without waiting for them
   (sync_file_range with SYNC_FILE_RANGE_WRITE); 0 on success, -1 and errno otherwise. */
int shelf_start_writeback(int descriptor);

/* Flushes the filesystem that holds the open file or folder `descriptor` (syncfs): only that
   filesystem, not every one as sync() does; 0 on success, -1 and errno otherwise. */
int shelf_syncfs(int descriptor);

/* Reads the next entries of the open folder `descriptor` into `buffer` as linux_dirent64
   records (getdents64): the bytes read, 0 at the end of the folder, -1 and errno otherwise. */
long shelf_read_folder_entries(int descriptor, void *buffer, unsigned long size);

/* Makes the open file `destination` share the data blocks of the open file `source`
   (ioctl FICLONE: a reflink, as `cp --reflink=always` makes; ioctl is variadic, which Swift
   cannot call); 0 on success, -1 and errno otherwise (EOPNOTSUPP, EINVAL or ENOTTY where the
   filesystem has no reflinks, EXDEV across filesystems). */
int shelf_clone_file(int destination, int source);

/* Renames `from` to `to` unless `to` exists (renameat2 with RENAME_NOREPLACE): 0 on success,
   -1 and errno otherwise (EEXIST when `to` exists, EINVAL where the filesystem lacks the flag). */
int shelf_rename_no_replace(const char *from, const char *to);

/// `renameat2(from_folder, from, to_folder, to, RENAME_NOREPLACE)`: the same, each name in an
/// open folder.
int shelf_renameat_no_replace(int from_folder, const char *from, int to_folder, const char *to);

#endif

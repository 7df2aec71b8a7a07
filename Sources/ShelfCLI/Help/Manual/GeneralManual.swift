/// The sections of shelf(1) that hold for every command: how output, errors, file names and
/// the catalogue file behave. They live in the manual rather than the README so that the
/// reference a user relies on is installed with the program.
enum GeneralManual {
  /// The sections of shelf(1) after DESCRIPTION.
  static let sections: [ManSection] = [conventions, catalogueFile, interruption]

  static let conventions = ManSection(
    "Conventions",
    #"""
    Help and requested output go to standard output; errors, warnings and progress to standard
    error. Colour and in-place progress appear only on a terminal, and never when NO_COLOR is
    set; elsewhere progress (where asked for) is plain lines, at most one a second.

    An error is one line naming the file and the reason, e.g.

      error: photos/a.png: is a directory

    File names need not be UTF-8: shelf keeps them as raw bytes. On a terminal a name that is
    not valid UTF-8 or holds control characters is printed escaped (\xff, \n); -0 prints the
    bytes as they are, and JSON gives the exact bytes in a path_b64 field (base64) beside the
    path.

    Exit statuses follow sysexits(3) (EXIT STATUS below). A command given several inputs (crush,
    extract, info, play) exits 0 when every input succeeded, and 1 when some failed; when every
    input failed, it exits with that failure's status (65 for bad data, 66 for missing files, 73
    when outputs exist, 77 for a wrong backup password), the most severe one when they differ
    (77 > 74 > 73 > 66 > 65). Nothing is overwritten without --force, which has no short form;
    -f is --format wherever there is one.

    shelf alone prints the commands, one line each, on standard error and exits 64; shelf --help
    prints the overview. ls, stats, extract, play and dupes take the same query terms
    (shelf-ls(1), QUERY SYNTAX).
    """#)

  static let catalogueFile = ManSection(
    "The catalogue",
    #"""
    The catalogue is --db PATH, else $SHELF_DB, else $XDG_DATA_HOME/shelf/catalog.sqlite
    (~/.local/share/shelf/catalog.sqlite). A postgresql:// or postgres:// URL instead names a
    catalogue shared on a PostgreSQL server (see shelf-catalog(1)). Only the default folder is
    created for you: a named catalogue's folder must exist (exit 73, naming it).

    Readers (ls, info, show, stats, roots, play, extract, dupes) open the catalogue read-only
    and never migrate or move it. Writers (index, forget, record for a recording inside a
    catalogued root, and dupes --link or --trash) take PATH.lock; one writer works at a time,
    and a second waits SHELF_LOCK_WAIT seconds (2), then exits 75. The one exception: content
    hashes computed by dupes or for the copies and copy-in fields are kept in one short write
    under PATH.lock when it is free at once; when it is not, or the catalogue cannot be
    written, they are used unstored (one warning). Readers keep working while a writer runs
    (SQLite's write-ahead log).

    A file that is not a shelf catalogue (a text file, an empty file, another program's SQLite
    database) is refused by every command, 'error: PATH: not a shelf catalogue', exit 65, and
    left exactly as it was. The catalogue records its schema and the version of shelf that wrote
    it: a reader facing an older schema says to run shelf index, which upgrades it in place and
    keeps every entry; a newer schema names the shelf that wrote it. Only index moves aside a
    shelf catalogue that SQLite finds damaged (to catalog.sqlite.corrupt, with a warning) and
    starts a new one.
    """#)

  static let interruption = ManSection(
    "Signals",
    #"""
    Ctrl-C or SIGTERM ends ls, info and show with 'error: interrupted' and exit 130, also while
    they are blocked writing to a slow pipe. index stops after the batch it is writing (exit 130;
    what was committed stays, and the next scan goes on from there). crush and extract remove
    their temporary file and exit 130; record and play have their own rules (shelf-record(1),
    shelf-play(1)).
    """#)

  /// Variables read by more than one command, beyond those every page lists, as (name, text).
  static let environment: [(String, String)] = [
    (
      "SHELF_HOST",
      "The host name a shared (PostgreSQL) catalogue files this machine's roots under, instead of the "
        + "system's host name (for a laptop whose name changes)."
    ),
    (
      "SHELF_LOCK_WAIT",
      "Seconds a writer (index, forget) waits for another one before it exits 75. Default: 2. A value "
        + "that is not a number of seconds is a usage error (64)."
    ),
    (
      "SHELF_BACKUP_PASSWORD",
      "The password of encrypted iPhone backups, unless --password-file is given."
    ),
    (
      "PGPASSWORD, PGPASSFILE",
      "libpq's own password sources for a PostgreSQL catalogue (PGPASSFILE names a file in the "
        + "~/.pgpass format)."
    ),
    (
      "TMPDIR",
      "Where info - spools standard input, and where decrypted backup content goes when it does not "
        + "go to memory (/dev/shm). Default: /tmp."
    ),
    ("LS_COLORS", "The colours of ls paths: its *.ext, ln, ex and fi entries."),
    (
      "LC_ALL, LC_CTYPE, LANG",
      "The first one set names the terminal's codeset, which show converts text to (UTF-8 when "
        + "none names another)."
    ),
    ("TERM, KITTY_WINDOW_ID", "Tell show that it runs under kitty, whose graphics protocol it then uses."),
  ]
}

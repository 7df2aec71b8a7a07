/// The sections of shelf-catalog(1) on a catalogue shared on PostgreSQL: how to name it, what
/// shelf needs of the database, how several machines share it, what failures look like, and
/// how to set up one server for a household or a team.
enum SharedCatalogueManual {
  /// The extra sections of shelf-catalog(1).
  static let catalogSections: [ManSection] = [
    selecting, database, severalMachines, faults, passwords, serverSetUp,
  ]

  static let selecting = ManSection(
    "A shared catalogue",
    #"""
    --db or SHELF_DB with a postgresql:// or postgres:// URL names a catalogue on a PostgreSQL
    server, in libpq's URI form: USER@HOST:PORT/DATABASE, ?host=/socket/folder for a Unix
    socket, and any libpq parameter such as sslmode, sslrootcert or connect_timeout, passed
    through as given. SQLite stays the default. Every command, query, sort, --json field and
    exit status behaves as on SQLite.

      shelf --db postgresql://me@nas:5432/shelf index ~/Pictures
      export SHELF_DB='postgres:///shelf?host=/run/postgresql'
      shelf --db 'postgresql://me@nas/shelf?sslmode=verify-full' ls
    """#)

  static let database = ManSection(
    "The database",
    #"""
    Give shelf an empty database (createdb shelf): the first shelf index creates its tables and
    the unaccent and pg_trgm extensions. Both are trusted extensions, which the database's owner
    may create; otherwise shelf says so, and a superuser runs CREATE EXTENSION unaccent; CREATE
    EXTENSION pg_trgm; in it.

    Paths are stored as bytea (names need not be UTF-8). Full text goes through a tsvector column
    with a GIN index (the simple configuration after unaccent, each word a prefix). ASCII capitals
    are lowercased by shelf, in the stored words and in queries alike, so that a database whose
    LC_CTYPE is Turkish (where the server would make I a dotless ı) finds Istanbul as SQLite does;
    shelf also folds other letters' case and Latin and Greek accents, and cuts Chinese and
    Japanese text into overlapping pairs of characters, before either engine sees the words.
    The full-text columns are compressed with lz4 where the server has it. name: and path: globs
    become regular expressions that the trigram indexes answer, then, where the text form cannot
    decide (a name that is not UTF-8, a non-ASCII letter whose case folds), one over the path's
    bytes: a glob matches the same rows as in SQLite. Bare words list in the same order too:
    shelf ranks them by a score of its own (name and tags, then text, then path alone; the
    shorter text first), not by either engine's relevance.

    A database with other tables and no shelf meta table is refused, 'error: catalogue URL: not
    a shelf catalogue', exit 65, and never altered. Schema versions and migrations are as for
    SQLite: readers refuse an older schema, and the next shelf index upgrades it.
    """#)

  static let severalMachines = ManSection(
    "Several machines",
    #"""
    Roots are named by host and path: each machine indexes its own folders, and shelf index
    without a ROOT rescans this machine's roots only (info, forget and relative paths in ls also
    mean this machine's). When the catalogue holds roots of more than one host, ls and roots
    show them as host:/path, and --json adds "host". The host is the system's host name, or
    SHELF_HOST when set (for a laptop whose name changes).

    One shelf index per root at a time, enforced with an advisory lock: a second indexer (or
    forget) of the same root waits SHELF_LOCK_WAIT seconds (2), then exits 75. Indexers of
    different roots, on any machines, run at once, and readers never wait. Work is committed at
    least every second in multi-row inserts, so an interrupted scan resumes where it stopped.
    """#)

  static let faults = ManSection(
    "Faults",
    #"""
    A server that cannot be reached: 'error: catalogue postgresql://...: connection refused' (or
    libpq's reason), exit 69. A server that goes away during a scan: exit 74, with every
    committed batch kept; the next shelf index goes on from there.
    """#)

  static let passwords = ManSection(
    "Passwords",
    #"""
    Prefer libpq's own sources, which never reach the command line: ~/.pgpass (or the file
    PGPASSFILE names), or PGPASSWORD in the environment. A password in the URL
    (postgresql://me:secret@nas/shelf, or ?password=) is accepted but discouraged: any user can
    read a process's arguments with ps in the moment before shelf masks them in its own argument
    list, and shells keep them in their history. shelf never prints it: every message shows the
    URL as postgresql://me:***@nas/shelf.
    """#)

  static let serverSetUp = ManSection(
    "Setting up one server for several machines",
    #"""
    A SQLite catalogue belongs on a local disk: over a network file system its locks are where
    "database is locked" and corruption come from. For a library that several machines index
    and query, set up one PostgreSQL server (version 13 or later; Debian's postgresql package,
    which also brings the unaccent and pg_trgm extensions). On the server, once, as the postgres
    user (sudo -u postgres ... on Debian):

      createuser --pwprompt shelf     # a role for shelf; type its password
      createdb --owner shelf shelf    # its database
      psql -d shelf -c 'CREATE EXTENSION unaccent'
      psql -d shelf -c 'CREATE EXTENSION pg_trgm'

    Then let the machines in. In /etc/postgresql/15/main/postgresql.conf set listen_addresses =
    '*' (or the server's LAN address) and keep ssl = on (Debian's default, with a self-signed
    certificate; put one your machines can verify in ssl_cert_file and ssl_key_file). In
    pg_hba.conf, allow the role over TLS only, with a password:

      # TYPE   DATABASE  USER   ADDRESS           METHOD
      hostssl  shelf     shelf  192.168.1.0/24    scram-sha-256

    sudo systemctl reload postgresql applies both. On each machine, name the database in
    SHELF_DB and put the password in ~/.pgpass (mode 600), never in the URL:

      url='postgresql://shelf@nas.local:5432/shelf'
      export SHELF_DB="$url?sslmode=verify-full"
      echo 'nas.local:5432:shelf:shelf:THE-PASSWORD' >> ~/.pgpass
      chmod 600 ~/.pgpass
      shelf catalog copy ~/.local/share/shelf/catalog.sqlite "$SHELF_DB"
      shelf index ~/Pictures     # each machine, its own folders

    sslmode=verify-full checks the server's certificate against ~/.postgresql/root.crt (copy the
    server's certificate or its CA there); sslmode=require encrypts without verifying, which is
    all a self-signed certificate that you did not copy allows. On the server itself, the Unix
    socket needs neither: postgres:///shelf?host=/run/postgresql. Back the shared catalogue up
    with pg_dump -Fc shelf (a SQLite copy holds the roots of one machine only).
    """#)
}

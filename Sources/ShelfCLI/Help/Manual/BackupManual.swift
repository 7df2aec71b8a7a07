/// The sections on iPhone backups: how index catalogues them (eras, encryption, passwords,
/// what is refused) and what extract and the other readers do with their entries. shelf
/// reads backups of every era, and these are the facts a user needs to trust it with one.
enum BackupManual {
  /// The extra sections of shelf-extract(1).
  static let extractSections: [ManSection] = [extracting, withoutExtracting]

  static let cataloguing = ManSection(
    "iPhone backups",
    #"""
    A backup folder of any era is recognised: Manifest.db (iOS 10 and later), Manifest.mbdb
    (iOS 4 to 9), .mdinfo files (iTunes 8.1 to 9) and .mdbackup files (iTunes 7 and 8, iPhone
    OS 1 and 2). Each entry's --json record holds backup {domain, app, file_id, protection_class,
    mode}. Areas come from the domain and the path:

      camera-roll    CameraRollDomain or MediaDomain, Media/DCIM/
      recordings     MediaDomain, Media/Recordings/; AppDomainGroup-
                     group.com.apple.VoiceMemos.shared, Recordings/
      voicemail      HomeDomain, Library/Voicemail/
      attachments    MediaDomain or HomeDomain, Library/SMS/Attachments/
      documents ...  HomeDomain and each AppDomain-, AppDomainGroup- and
                     AppDomainPlugin- container, as in a sandbox:
                     documents, preferences, caches, library, tmp
      other          everything else

    Kinds and facts come from the content, through the same readers as any file: a
    plain stored file is read in place (no copy); an encrypted one is decrypted into a private
    file that has no name from the start, in memory (/dev/shm) up to 64 MiB and in the temporary
    folder ($TMPDIR) above that, so a long video does not fill the memory. shelf roots and
    shelf stats show each backup's device, model, iOS version, date, encryption and era.
    Rescans read again only the entries whose size or time changed; entries gone from the
    manifest leave the catalogue.

    Passwords: from --password-file FILE (its first line), else SHELF_BACKUP_PASSWORD, else a
    prompt without echo when standard input and standard error are a terminal, asked only when
    an encrypted backup is met. A password is never printed, logged, stored in the catalogue or
    put on a command line. A missing or wrong one is 'error: BACKUP: wrong password for this
    encrypted backup', exit 77, found when the keybag is unlocked, before any file is read.

    Encrypted backups of every era that had encryption are read. Manifest.db and Manifest.mbdb
    backups (iOS 4 and later) hold a keybag whose class keys unwrap a key per file. .mdinfo
    backups (iTunes 8.2 to 9, iPhone OS 3, before keybags existed) keep an auth key in
    Manifest.plist's AuthData under the password's PBKDF2-SHA1 key (2,000 rounds), checked by
    its SHA-1, so a wrong password is found before any file is read; each .mdinfo's Metadata
    and each .mddata is encrypted with its own key under the auth key (AES-256-CBC), the layout
    the iphone-dataprotection project's backup3.py reads. .mdbackup backups (iPhone OS 1 and 2)
    predate encryption. A keybag asking for more than 20,000,000 rounds in either key-derivation
    stage is refused (real backups use 10,000,000 SHA-256 and 10,000 SHA-1 rounds), so a hostile
    backup cannot keep shelf busy for days.

    Nothing in a backup folder is ever written. Manifest rows whose names escape their domain
    (../, absolute paths, NUL bytes, a .. domain) are reported one line each and never
    catalogued. Symbolic-link entries are never followed or recreated. A missing stored file, a
    bad ciphertext or an unfinished backup is one line each; the rest is catalogued; exit 1.
    """#)

  static let extracting = ManSection(
    "iPhone backups",
    #"""
    Entries of iPhone backups are extracted like any catalogued file, decrypted as they are read
    (the password as shelf-index(1) says), each with the modification time its manifest
    records. Plain stored files, and ordinary files, are copied inside the kernel (sendfile), as
    cp copies. Every catalogued path is checked again before anything is written, and a backup
    folder is only read. Each backup's files go under a folder of their own, named by the
    device and the backup's local date (DIR/Shelf Test iPhone 2024-05-01/MediaDomain/...; the
    next backup of that name and date gets " (2)", in the order the backups were made), so
    the same path in several backups never collides. Symbolic-link entries are never followed
    or recreated: each one beside a file extracted gets a line (PATH: symbolic link to
    TARGET; skipped).

    The summary reads like crush's:

      Extracted 5 of 5 files (100 KiB) in 0.02 s; 1 symbolic link skipped
    """#)

  static let withoutExtracting = ManSection(
    "Reading backup entries in place",
    #"""
    info, show, play and crush -o also accept a backup entry's catalogued path
    (BACKUP/DOMAIN/relativePath), and play a query such as area:voicemail: the content is read
    from the backup, decrypted when need be. play opens each backup (and checks its password)
    before the first track, but decrypts a track only when its turn comes, so a long playlist
    starts at once and holds one decrypted track at a time. crush --in-place refuses a backup
    entry (exit 73).
    """#)
}

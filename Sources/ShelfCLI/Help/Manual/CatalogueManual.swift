import ShelfCatalog

/// The reference sections of the catalogue's pages: what index stores and when it reads a
/// file again, how it survives hostile files, how ls prints and which JSON keys scripts can
/// rely on, and how show draws pictures. Kept beside the command table so that the installed
/// manual, not a README, is where these details live.
enum CatalogueManual {
  /// The extra sections of shelf-index(1).
  static let indexSections: [ManSection] = [
    whatIsStored, rescans, safety, BackupManual.cataloguing,
  ]
  /// The extra sections of shelf-ls(1), after its QUERY SYNTAX.
  static let lsSections: [ManSection] = [output, jsonFields]
  /// The extra sections of shelf-show(1).
  static let showSections: [ManSection] = [previews]

  static let whatIsStored = ManSection(
    "What is stored",
    #"""
    Each file's kind (image, audio, video, text, plist, other) and MIME type come from its
    content. detected_by says what decided: content, content+extension when both agree, or
    extension when the content was not conclusive; extension_mismatch flags a file whose
    extension says otherwise (a .jpg that is a PNG).

    Then, from headers only: an image's size, bit depth, colour type, alpha, interlacing, CgBI
    and animation frames; a photo's EXIF facts (when taken, camera, lens, orientation, GPS
    position, software) and its Live Photo partner; audio duration, sample rate, channels, exact
    frame count, format, codec, bit rate, cover art and tags; a video's size, codec, frame rate,
    rotation, sound and filming date; a text's encoding, byte-order mark, line endings, first
    line and line, word and character counts, and the decoded words of its first 64 KiB in a
    full-text index (what bare words in shelf ls search); a property list's format, root type
    and top-level keys. shelf-info(1) says, format by format, where each fact comes from.
    """#)

  static let rescans = ManSection(
    "Rescans",
    #"""
    The modification time is compared to the nanosecond. A file counts as moved when a new
    path has the device, inode, size and modification time of a path that is gone: it keeps its
    facts without being read.
    A file whose timestamps lie within 3 seconds of the scan could still be changing: its facts
    are not trusted, and the next scan reads it again.

    Batches are committed at least every second, so after Ctrl-C, kill -9 or a power loss the
    next scan picks up where the last commit left off. Each entry records the version of the
    extractor that read it, so a newer shelf reads again the files it now reads better.
    """#)

  static let safety = ManSection(
    "Safety",
    #"""
    Files are opened with O_NOFOLLOW and checked again after opening, so a file swapped for a
    link or a FIFO during the scan is not read through.

    The workers are the shelf binary itself, one per --jobs, started only when a file must be
    read: as the walk begins for a root new to the catalogue, at the first file to read
    otherwise (an unchanged rescan starts none), as GNOME Tracker's extractor runs. Their seccomp
    filter is an allow-list: read the files they are handed (and libraries, opened for
    reading), map memory, run threads, signal themselves, write their answers to their reply
    pipe and standard error. The network, exec and fork end a worker; every other call fails
    (opening for writing, sockets, signals to other processes, pidfd_*, ptrace, process_vm_*,
    open_by_handle_at, chmod, chown, xattr and time changes, mount, namespaces, keyctl, bpf,
    perf_event_open, io_uring). A worker holds no capability and sets no_new_privs, inherits
    no descriptor of shelf (the catalogue's among them) and only the locale, time zone, loader
    and memory variables of its environment (no password); shelf itself is not dumpable once
    a worker started. shelf info reads through a worker too: a file that crashes it is
    reported with the reason and counts as bad data (exit 65).

    Lying headers (a PNG claiming 100000x100000 pixels, a WAV chunk bigger than the file, a
    binary plist with offsets past its end or reference cycles, a 1 GB single line) cost
    bounded time and memory and give the file an error. No number read from a file can make
    shelf's own parsers trap: sizes, counts and offsets that would overflow 64 bits are a
    'corrupt ...' error, a box or chunk claiming more than the file holds is 'truncated ...',
    and a media length beyond 2^50 frames (an RF64 ds64 or Ogg granule of 2^63 - 1) is
    catalogued as unknown with the error 'corrupt: declared length of ... s is out of range'.
    For example:

      corrupt binary plist: reference 9223372036854775808 past the
        object table
      corrupt TIFF: tag 256 declares ... values, more than the file
        holds

    --exclude without a ROOT is a usage error (64): patterns are stored with the roots named.
    """#)

  static let output = ManSection(
    "Output",
    #"""
    On a terminal a path that does not fit loses its middle first, then the facts lose their
    end. Without LS_COLORS entries that apply, paths are coloured by kind: images magenta, audio
    cyan, video blue, property lists yellow, entries whose facts could not be read red. When
    the catalogue holds roots of several hosts (a shared catalogue, shelf-catalog(1)), every
    path reads host:/path and every JSON record starts with a host key.

    -0, --json and --jsonl always give absolute paths; -0 gives the raw bytes of each name, so
    names that are not UTF-8 pass through xargs -0 unchanged. --m3u gives them raw too (the
    list finds the file again on this system); --m3u8 leaves out, with a warning, a name that
    is not UTF-8, and both leave out a name holding a line break. Tags are written on one line
    (control characters as spaces).
    """#)

  static let jsonFields = ManSection(
    "JSON fields",
    #"""
    ls --json (an array), ls --jsonl (one record a line), info --json and show --json print the
    same record per file. A kind's object appears only for entries of that kind, and a fact the
    file lacks is null in it; path_b64, host, extension_mismatch, catalogued, error and
    live_photo appear only when they apply.

      path          the absolute path (path_b64: its bytes, when not UTF-8)
      host          (ls) the root's host, when the catalogue has several
      root          the catalogued root
      area          bundle, documents, preferences, caches, library, tmp,
                    other; for backups camera-roll, recordings, voicemail,
                    attachments, notes and the app areas
      kind          image, audio, video, text, plist, other
      mime          the MIME type from the content
      size          bytes
      mtime         the modification time (RFC 3339)
      detected_by   content, content+extension or extension
      extension_mismatch
                    true when the extension disagrees with the content
      catalogued    (info, show) whether the catalogue held the facts
      error         why some facts could not be read
      live_photo    the path of the other half of a Live Photo

    \#(kindObjects)
      cue           (info, a .cue file) title, performer, tracks [{number,
                    title, performer, start, duration (seconds, null when
                    unknown), file}], warnings

    A --format template takes the same names ({bit_depth}, {sample_rate}) and the query
    fields.
    """#)

  static let previews = ManSection(
    "Image previews",
    #"""
    Sixel support is recognised by feature 4 in the terminal's answer to the
    device-attributes query. Sixel and kitty images are sized by the terminal's cell size in
    pixels (10x20 when it does not say). Sixels use a fixed 6x7x6 palette without dithering;
    pixels less than half opaque are left unpainted. Half-blocks are ▀ with a 24-bit foreground
    and background colour. A bitmap is fitted to --width or COLUMNS and never enlarged.

    Decoders: a JPEG photo through libjpeg-turbo, decoded at 1/2, 1/4 or 1/8 scale and shrunk
    the rest of the way by an area average (a 12-megapixel JPEG is never decoded whole); the
    other formats through libvips, which shrinks while it loads (PNG, GIF, WebP, TIFF, PNM,
    JPEG 2000, CMYK and large progressive JPEGs; HEIC and AVIF through libheif, from their
    thumbnail or tiles; BMP, ICO, CUR, PSD and TGA through its ImageMagick loader; SVG through
    librsvg). Formats libvips cannot read are decoded on their own and resized by libvips: QOI
    by the reference decoder (up to 64 megapixels), ICNS by libicns, CgBI by shelf's PNG
    decoder. libvips is loaded only when a preview needs it, so other commands do not pay for
    it.

    The error of a picture that cannot be decoded reads 'error: FILE: cannot decode image:
    REASON' (exit 65). A video's first frame is scaled by libswscale.
    """#)

  /// The lines of the JSON fields section listing each kind's object, from `FactField.table`.
  private static var kindObjects: String {
    ["image", "audio", "video", "text", "plist", "backup"].map { key in
      ManualColumns.entry(
        key, FactField.jsonKeys(ofObject: key).joined(separator: ", "), labelWidth: 14, width: 68)
    }.joined(separator: "\n")
  }
}

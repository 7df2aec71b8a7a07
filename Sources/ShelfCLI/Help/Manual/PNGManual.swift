/// The sections of shelf-crush(1): what each level tries, which chunks survive, how animated
/// and iPhone-optimized PNGs are treated, and what a user sees when a file cannot be crushed.
enum PNGManual {
  /// The extra sections of shelf-crush(1).
  static let crushSections: [ManSection] = [
    levels, metadata, animated, cgbi, safety, badInput, reports,
  ]

  static let levels = ManSection(
    "Reductions and levels",
    #"""
    Each file is decoded by libpng (every colour type and bit depth, Adam7, palette with tRNS,
    16-bit kept exactly) into RGBA, and the encoder tries exact reductions: 16 to 8 bits when
    every sample allows it; RGB to gray; RGBA to RGB or a tRNS colour key; true colour or gray
    to a palette of at most 256 entries (translucent entries first so that tRNS is short, packed
    to 1, 2 or 4 bits; the opaque ones ordered by frequency, by luminance and as a chain of
    colours that touch in the image, as oxipng's and pngquant's sorts do); gray packed to 1, 2
    or 4 bits; de-interlacing.

    Row filters are chosen per level (fixed filters 0 to 4, minimum sum, entropy, bigrams;
    bigram entropy from level 3; brute force from level 5) by libdeflate trials over the whole
    image (evenly spaced bands of rows above 4 MB): every candidate encoding is tried first with
    None and bigrams, the other strategies on the best one, as oxipng does. At the default
    level, on images of more than 256 KB of filtered rows, every trial is first ranked at
    libdeflate's level 1 on a 256 KB sample and only the best two get the full trial. The best
    trial is compressed at the final level (libdeflate 12; 11 above 4 MB at the default level; 12 also
    where the level's own is weaker and the data is at most 256 KB). From level 3 on, the next
    one or two trials are compressed as well when they came within 2 %, and the final
    compression decides between them. At --level max the winner is also compressed with zopfli
    (15 iterations up to 256 KiB of filtered data, fewer above).

    zlib's Huffman-only and run-length codings of the same filtered bytes compete with every
    final compression (CgBI and APNG frames included) wherever libdeflate's stream is not
    already well below the data's order-0 entropy: on noisy photographs libdeflate 1.14 spends
    bits on short matches that cost more than they save, and literals are up to 8 % smaller.

    The output is decoded again and compared pixel for pixel (16-bit included) before anything
    is written; a file that cannot be made smaller is left as it is (with -o, copied).
    """#)

  static let metadata = ManSection(
    "Metadata",
    #"""
    --strip safe keeps only cHRM, gAMA, iCCP, sRGB, cICP, mDCv, cLLi, sBIT and pHYs; --strip all
    keeps none. --alpha lets the colour of fully transparent pixels change.

    The chunks libpng rejects are an empty or malformed gAMA, cHRM, iCCP, sRGB, sBIT, bKGD,
    pHYs or tRNS, a second copy of a chunk allowed once, and a chunk out of its place; strict
    decoders such as pypng and Pillow fail on them. Each dropped chunk is one warning:

      warning: a.png: dropped gAMA chunk at byte 33 (libpng: invalid)

    libpng is the judge: its decode reports them and shelf drops exactly those. Warnings about
    chunks it keeps (gamma value does not match sRGB) and chunks it ignores silently (a second
    iCCP) change nothing. When the image data cannot be made smaller, the output is the input
    without the rejected chunks, byte for byte. A CgBI file's chunks are not checked: libpng
    never sees them. Files libpng only warns about (the "known incorrect sRGB profile" that
    makes pngcrush write an empty file) are crushed normally.
    """#)

  static let animated = ManSection(
    "Animated PNG",
    #"""
    APNG files (acTL, fcTL, fdAT) are recompressed, not re-encoded: each frame's image data (the
    IDAT run and every fdAT run) is inflated and compressed again (libdeflate at level 1 and at
    the level's strongest setting, zopfli too at --level max, zlib's two codings as above; the
    smallest wins, the frame's own stream included) with its filtered bytes unchanged, so no
    frame's pixels, filters, colour type or bit depth change. A frame split over several chunks
    becomes one chunk, and the sequence numbers of fcTL and fdAT are renumbered from 0; acTL and
    every other fcTL field stay as they were. --strip applies to the other ancillary chunks
    (acTL, fcTL and tRNS are always kept). The file is kept as it is (less any chunks libpng
    rejects) when a frame does not inflate to its exact size, the result is not smaller, or the
    default image decodes differently. --iphone and --revert-iphone do not apply: an animation
    stays a standard APNG, and an animated CgBI file is kept as it is.
    """#)

  static let cgbi = ManSection(
    "iPhone-optimized PNG (CgBI)",
    #"""
    info, ls and show read CgBI files, and a plain crush keeps them CgBI (recompressed).
    --revert-iphone inflates the raw deflate stream (all five filters and Adam7),
    un-premultiplies as Apple does, c = (c·255 + a/2) / a, swaps BGRA to RGBA and drops the CgBI
    and iDOT chunks. --iphone writes the Xcode form: a CgBI chunk 50 00 20 06 (opaque) or 50 00
    20 02 (with alpha), premultiplied BGRA, filter None or Sub, raw deflate.

    Gray, gray-alpha, palette (tRNS included) and 16-bit images become 8-bit BGRA, as Xcode's
    pngcrush makes them: 16-bit samples are rounded as libpng's png_set_scale_16 rounds them,
    (v·255 + 32895) >> 16, i.e. round(v / 257), and when that loses detail (a sample that is not
    a multiple of 257) a warning says so:

      warning: a.png: 16-bit samples rounded to 8 bits for CgBI (lossy)

    To CgBI and back is exact for opaque pixels (of the 8-bit image) and matches
    premultiplication's rounding otherwise.
    """#)

  static let safety = ManSection(
    "Safety",
    #"""
    A crush killed with kill -9 leaves the original intact; Ctrl-C or SIGTERM removes the
    temporary file and exits 130. --in-place through a symbolic link writes the link's target
    and keeps the link. Two inputs that would write the same output (the same name from two
    folders) are refused rather than overwrite each other, and so is an input whose output
    already exists in the --out-dir folder, unless --force. --preserve keeps mode and
    modification time.

    --jobs N crushes N files at a time, biggest first, each on a thread of its own; a single
    file gets its trials spread over the cores. --json prints per-file results and a summary
    object.
    """#)

  static let badInput = ManSection(
    "Bad input",
    #"""
    Corrupt or truncated files, bad CRCs, decompression bombs, empty and non-PNG files get one
    line each and the batch goes on:

      error: a.png: truncated PNG: IDAT ends early
      error: b.png: corrupt PNG: bad compressed image data (invalid
        distance too far back)

    Dimensions above --max-pixels (64 Mpx) are refused before anything is allocated, and so is a
    decoded size above --max-decoded-bytes (crush and show; 1G), from the header: 'decoded image
    of N bytes exceeds the 1 GiB limit', exit 65. Within those limits an image is crushed, and a
    CgBI one shown, within twice its decoded size (an 8192x8192 16-bit image and a 6000x4500
    RGB photograph included; below about 8 megapixels the process's own 17 MiB count beside it).

    The summary says how many failed and why, e.g. 'Crushed 0 of 1 file; 1 failed (bad input)'.
    """#)

  static let reports = ManSection(
    "Reports",
    #"""
    -v prints a line per file. A file whose best new encoding would be bigger reads

      a.png: 164 bytes, grew 9.8 % (16 B); kept the original
    """#)
}

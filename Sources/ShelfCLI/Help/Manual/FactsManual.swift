/// The sections of shelf-info(1) that say, format by format, where each fact comes from and
/// what it means: the reference a user needs to trust a number that shelf prints or a query
/// that matches on it.
enum FactsManual {
  /// The extra sections of shelf-info(1).
  static let infoSections: [ManSection] = [
    imageFacts, photos, livePhotos, mediaFacts, tags, TextManual.encodings, TextManual.counts,
  ]

  static let imageFacts = ManSection(
    "Image facts",
    #"""
    Images are recognised by content and read from their headers, never decoded: a 30000x30000
    header costs what a 16x16 one does. image.format names the format; frames counts what the
    format calls its frames. loop is how many times a GIF or WebP animation plays, 0 for forever
    (loop:0): a WebP's ANIM loop count (as webpmux reports it), a GIF's NETSCAPE2.0 repeat count
    plus one (Pillow's info['loop'] + 1, as browsers play it).

    PNG, APNG, CgBI: IHDR; an APNG's frames are its fcTL chunks (acTL's count is not trusted:
    encoders that drop frames leave it behind).

    JPEG: the first start-of-frame of any kind (baseline, extended, progressive, lossless,
    arithmetic); junk before a marker is skipped as libjpeg does; color_type ycck, cmyk or rgb
    from Adobe's APP14 segment (one too short is ignored).

    GIF: the logical screen; every image descriptor is a frame, counted in one streaming pass.

    WebP: the VP8, VP8L or VP8X header; ANMF chunks are frames.

    TIFF, BigTIFF: the first IFD; the pages of the main IFD chain are frames (sub-IFDs are not);
    a loop or an offset past the end ends the chain.

    HEIF, HEIC, AVIF (through libheif): the primary image as displayed, a grid assembled and
    irot and clap applied; top-level images are frames; alpha from the alpha auxiliary image.
    An image sequence (an animated AVIF, a HEIF sequence) has its picture track's samples as
    frames, as Pillow counts them. A file whose primary item libheif 1.15 cannot decode
    (uncompressed, brotli or deflate-compressed items) gets its size from the item's ispe
    property (irot applied) and no colour facts.

    BMP, DIB (image/bmp): every DIB header (OS/2 1.x and 2.x, INFO, V2 to V5) and a .dib without
    its BM file header; bit counts checked; alpha from the alpha mask under BI_BITFIELDS or
    BI_ALPHABITFIELDS, as Pillow reads it.

    ICO, CUR (image/vnd.microsoft.icon, image/x-win-bitmap): the largest entry (a PNG entry by
    its own IHDR); entries are frames.

    ICNS (image/x-icns): as Pillow reads it: the frames are the distinct sizes (points and
    scale) of the PNG, JPEG 2000 and 24-bit elements and their masks, and the size is the
    largest of them (by points, then scale) in pixels; a file with only the classic 1-, 4- and
    8-bit icons counts their sizes.

    PSD, PSB (image/vnd.adobe.photoshop): the header; layers are frames (1 without layers).

    TGA (image/x-tga): the header. TGA has no magic number: a file is TGA by its
    TRUEVISION-XFILE footer, else by a header file(1) finds plausible and a .tga name.

    QOI (image/x-qoi), PBM, PGM, PPM and PAM (P1 to P7, plain ASCII ones too), XPM: the header.
    Netpbm and XPM files are images, not text.

    JPEG 2000 (image/jp2, image/jpx, image/x-jp2-codestream): the JP2 ihdr box, or the
    codestream's SIZ segment.

    SVG (image/svg+xml): the root <svg>'s width and height in CSS pixels (96 per inch), else its
    viewBox.

    PCX and DCX (image/vnd.zbrush.pcx, image/x-dcx): the header's window; a DCX's pages are
    frames (up to 1,024), its size the first page's. SGI (image/x-sgi), Sun raster
    (image/x-sun-raster), DDS (image/x-dds, the header only: mipmaps and cube faces are not
    frames): the header. XBM (image/x-xbitmap): the _width and _height defines before a _bits
    array; such a file is an image, not text.

    EPS (image/x-eps, PostScript whose first line says EPSF, or a DOS EPS binary header): the
    %%BoundingBox in points (each corner truncated, as Pillow reads it; (atend) looks in the
    trailer), or Photoshop's %ImageData columns and rows; without a bounding box, the TIFF or
    WMF preview the DOS header points at. Other PostScript stays text.

    FITS (image/fits): NAXIS1 by NAXIS2 of the first header unit with an image (a 1-D array is
    one row; ZNAXIS1 and ZNAXIS2 for a tile-compressed image); BITPIX gives the bit depth.

    A damaged image gets a one-line error ('corrupt TIFF: IFD offset past the end', 'truncated
    GIF: data cut off' with the frames found so far) and the scan goes on. Lying headers (IFD
    loops, chains of 64 KiB JPEG segments, a GIF of a million frames, a HEIF declaring 100,000
    items or a box larger than the file) cost time in proportion to the file and no more
    memory than it. libheif reads a HEIF's top-level boxes whole when it opens the file, so a
    HEIC costs about its own size in reads and memory (never a decode), and one over 256 MiB is
    not opened ('HEIC larger than 256 MiB: not read'). libheif is loaded only when a HEIF file
    is read.
    """#)

  static let photos = ManSection(
    "Photos",
    #"""
    EXIF is read through libexif from wherever the container keeps it: a JPEG's Exif APP1
    segment, a PNG's eXIf chunk or ImageMagick's "Raw profile type exif" (or APP1) text chunk
    (tEXt, zTXt, iTXt), a WebP's EXIF chunk, a TIFF's or DNG's own directories (BigTIFF too,
    of any size), a Photoshop file's image resource 1058, a JPEG 2000 file's EXIF uuid box and
    the primary image's Exif item of a HEIF, HEIC or AVIF. A TIFF's IFD0, Exif and GPS
    directories are read by offset wherever they lie (a scanner's or drone's TIFF writes them
    after the strips) and only the tags below are copied for libexif, which reads no further
    than 64 KiB into a block. shelf walks only the container; libexif bounds-checks every
    offset and stops at directory loops, so a hostile block yields fewer facts, never a hang.
    The XMP packet (a JPEG's XMP APP1 segment, a PNG's XML:com.adobe.xmp iTXt chunk, a WebP's
    XMP chunk, TIFF tag 700, Photoshop resource 1060, the JPEG 2000 XMP uuid box, the HEIF XMP
    item; up to 8 MiB) fills in what the EXIF lacks: exif:DateTimeOriginal,
    photoshop:DateCreated, xmp:CreateDate, tiff:Orientation, tiff:Make, tiff:Model,
    tiff:Software and exifEX:LensModel. The facts agree with exiftool -json -n, and shelf says
    nothing where exiftool finds nothing.

      taken        DateTimeOriginal and OffsetTimeOriginal, as
                   2024-05-17T10:30:00+02:00 (the offset only when
                   recorded; 0000:00:00 dates are dropped); else
                   XMP's DateTimeOriginal or DateCreated, else
                   CreateDate (DateTimeDigitized and
                   OffsetTimeDigitized, else XMP's), as exiftool's
                   composite tags fall back; fractions of a second
                   are dropped
      camera       Make and Model: Apple iPhone 12 Pro; the make is
                   left out when the model starts with it
                   (Canon EOS 5D, NIKON D750)
      lens         LensModel, as written
      orientation  Orientation, 1-8 (other values are dropped); info
                   adds exiftool's words: 6 (rotate 90 CW)
      gps          GPSLatitude, GPSLongitude, GPSAltitude and their
                   Ref tags: lat, lon and alt in signed decimal
                   degrees and metres, as exiftool's composite tags
      software     Software, as written

    stats counts photos by the year they were taken (photos_by_year in --json).
    """#)

  static let livePhotos = ManSection(
    "Live Photos",
    #"""
    A Live Photo is a still (HEIC or JPEG) and a MOV that share Apple's content identifier: the
    still's Apple MakerNote tag 17 and the movie's com.apple.quicktime.content.identifier. At
    the end of a scan, in every folder where something changed, such pairs are linked both
    ways: live_photo (JSON, {live_photo} in a --format template, "Live Photo:" in info) names
    the other file, and ls live_photo:yes finds both halves.
    """#)

  static let mediaFacts = ManSection(
    "Audio and video facts",
    #"""
    Media are recognised by content (a .m4a that is an MP3 is catalogued as MP3 and flagged
    extension_mismatch) and read through FFmpeg's libraries from the descriptor the catalogue
    opened (never by path again), with probing and allocation bounded (probesize 5 MB,
    analyzeduration 5 s, no single allocation over 256 MiB) and FFmpeg's log captured, never
    printed. An MP3 needs none of FFmpeg: its frame headers give the rate, channels, layer (mp1,
    mp2, mp3), bit rate and exact length, and shelf's ID3 reader the tags and cover art.
    FFmpeg's libraries are loaded the first time a file needs them, so a command that reads no
    such file never maps them. frames and duration are, by format:

    MP4, M4A, M4B, M4R, MOV, 3GP (by their ftyp brands) with AAC, HE-AAC, ALAC, Opus or FLAC:
    what the edit list keeps of the audio track, or iTunes' iTunSMPB sample count when present
    (encoder delay and padding trimmed), whatever the movie header (mvhd) says; a sample table
    pointing past the end of the file gives the frames present.

    MP3 (MPEG 1, 2 and 2.5, layers I to III): counted from the frame headers. ID3v2 at the
    start and APEv2 and ID3v1 at the end are skipped, a Xing, Info or VBRI frame is not audio,
    and the LAME tag's delay and padding are trimmed (as FFmpeg, mpg123 and iTunes decode); a
    Xing header that counts more frames than are present, or a last frame cut off, gives the
    frames present.

    AMR-NB, AMR-WB: counted from the frame headers (160 or 320 samples each).

    WAV, RF64, AIFF, FLAC, WavPack, APE, CAF, W64, AU: the header's sample count (FLAC's
    STREAMINFO, WAV's data size: a data chunk longer than the file gives the frames present;
    CAF's packet table counts the valid frames, the encoder's priming and remainder left out).

    Ogg Vorbis, Opus, FLAC and Speex, Matroska and WebM (MKA): the last granule or the
    container's duration, less Opus's pre-skip.

    WMA/ASF, DSF: the container's duration at the sample rate (ASF keeps milliseconds; DSF
    counts whole 4096-byte blocks, as FFmpeg decodes them).

    Musepack SV8: the stream header's sample count less its beginning silence, what mpcdec
    yields.

    TTA, TAK, DSDIFF (.dff), RealAudio: the header's length. Tracker modules (MOD, S3M, XM, IT,
    through FFmpeg's libopenmpt demuxer): one play-through as libopenmpt renders it (48 kHz
    stereo, codec pcm_f32le).

    Shorten (.shn): the sample count of the WAV or AIFF header it carries (FFmpeg's raw shn
    demuxer gives none), read by shelf without FFmpeg; codec shorten.

    AAC in ADIF (a file starting with "ADIF", which FFmpeg does not read): shelf's own header
    reader gives the rate and channels of its program config element and the bit rate; the
    length is the stream's bytes at that bit rate, as mediainfo and faad estimate it (an ADIF
    stream has no frames to count without decoding; a variable bit rate stream's header holds
    its peak rate, so its length is a lower bound); codec aac. A header without a bit rate
    gives no length and an error.

    AC-3, E-AC-3, DTS, ADTS and LOAS/LATM AAC (raw streams), and a container whose writer left
    its length out (RealAudio 14.4 from ffmpeg): counted, every packet read (split by FFmpeg's
    parser, not decoded), since such a file declares no length and a duration from the bit
    rate is only an estimate.

    A file that starts with an ID3v2 tag is read as what follows the tag: MP3 mostly, but also
    FLAC, WAV, Musepack and the others above, however large the tag's cover art.

    A file cut short keeps the facts of what it holds and gets an error ('truncated: 49152 of
    88200 frames present'); a file with no usable stream gets a one-line reason ('moov atom not
    found', 'only an ID3 tag: no MPEG audio frames', 'no AMR frames', 'cannot allocate memory'
    for a sample table of billions of entries), and info and show exit 65.

    codec is FFmpeg's codec name (aac, alac, mp3, flac, vorbis, opus, pcm_s16le, amr_nb, ...);
    bitrate is in bits per second (for MP3 the frames' own rates averaged); artwork is true when
    cover art is embedded.

    A MOV, MP4, M4V, 3GP, MKV, WebM, AVI, Ogg (Theora), WMV/ASF, FLV, RealMedia, DV or
    MPEG-TS/M2TS file with a video stream (cover art does not count) is of kind video (one
    without is audio): duration (the container's, else the longest stream's: an Ogg film's
    sound may outlast its picture; else what the picture's index spans: an AVI whose writer
    left its header's frame counts at 0), width, height, codec, frame_rate, rotation (degrees clockwise
    from the display matrix, as exiftool's Rotation: a phone's portrait video is 90),
    audio_codec, sample_rate, channels and taken (Apple's com.apple.quicktime.creationdate,
    else the container's creation time, in RFC 3339: QuickTime's +0200 as +02:00, and
    without an offset when the file records none). stats counts and sums videos; info and show print
    their facts.
    """#)

  static let tags = ManSection(
    "Tags",
    #"""
    Tags come from every tag format: ID3v1 and ID3v2.2, 2.3 and 2.4 (in MP3, and in the 'ID3 '
    chunk of AIFF and WAV files), APEv2, Vorbis comments (FLAC, Ogg, Opus), MP4 ilst atoms
    (©nam, ©ART, aART, ©alb, ©day, trkn, disk, ©gen or gnre, covr), RIFF INFO and WMA/ASF.
    Several values of one tag (repeated Vorbis comments, ID3v2.4's NUL-separated lists, a
    repeated ID3 frame) are joined with '; '. Numeric ID3 genres are named ((3) and (3)Dance are
    Dance, (8)(31) is Jazz; Trance, with Winamp's extensions). track and disc are numbers; their
    totals (3/12, TRACKTOTAL) go to track_total and disc_total. ID3v2 is read as real files
    write it, as mutagen reads it: unsynchronised (the whole tag in 2.2 and 2.3, each frame in
    2.4), with an extended header (or its flag set and none), empty frames passed over, iTunes'
    2.4 tags with 2.3 frame sizes, UTF-16 with either byte order mark or none (little-endian),
    TXXX and WXXX frames with empty descriptions; the ID3v1 tag fills what ID3v2 lacks; 2.3's
    TYER, TDAT and TIME make one date (2004-03-05T14:30:00); the comment is the COMM frame
    without a description (iTunes' iTunNORM and iTunSMPB notes are not comments). Compressed
    and encrypted frames are skipped.
    """#)
}

/// The sections of shelf-play(1) and shelf-record(1): what reaches the sound card, what a user
/// sees when a file or a device fails, and what a recording looks like on disk at every moment.
enum AudioManual {
  /// The extra sections of shelf-play(1).
  static let playSections: [ManSection] = [decoding, playback, playErrors]
  /// The extra sections of shelf-record(1).
  static let recordSections: [ManSection] = [recordingFiles]

  static let decoding = ManSection(
    "Decoding",
    #"""
    One decoder interface, the decoder chosen by content, never by the extension. Files are
    streamed block by block: memory stays flat however long the file. AAC is gapless: the
    encoder delay and padding are trimmed by the MP4 edit list (and iTunes' iTunSMPB), so the
    samples played are exactly the duration times the rate; a CAF packet table's priming and
    remainder are trimmed too. Seeks land on the exact sample: FFmpeg seeks before the target,
    and shelf decodes forward and discards. HE-AAC is decoded by FFmpeg but untested (Debian
    has no encoder for it). FFmpeg's own log is captured, never printed.
    """#)

  static let playback = ManSection(
    "Playback",
    #"""
    The decoder's samples reach ALSA unchanged at volume 100, in the codec's own sample type:
    16-bit as S16, 24 and 32-bit as S32, float and the lossy codecs as FLOAT (FFmpeg's planar
    output is only interleaved). libswresample converts only when a device cannot take that
    type, or takes neither the file's rate nor its channel count; it then resamples and remixes
    with FFmpeg's defaults, as ffmpeg and mpv do.

    Underruns and suspends are recovered (snd_pcm_recover); a device that vanishes is an error,
    not a busy loop. At the end the last period is padded with silence and drained with a time
    limit, so a stuck device cannot hang shelf.
    """#)

  static let playErrors = ManSection(
    "Errors",
    #"""
    Each bad item is one line, and the playlist goes on:

      error: FILE: --start 5:00 is past the end (3:12)
      error: FILE: damaged audio file: … moov atom not found
      error: FILE: truncated audio file: 49152 of 88200 frames present

    A truncated file plays what it holds before its error. A query that matches no audio says
    'no audio matches' and exits 1.
    """#)

  static let recordingFiles = ManSection(
    "The file on disk",
    #"""
    WAV (RF64 too), AIFF, W64, AU and PCM CAF files have their length header rewritten after
    every block, so after kill -9 the file opens with everything written.

    An M4A recording is fragmented MP4: an empty moov is on disk before the first sample, then
    a fragment about every second, each flushed to the file. After kill -9 at any moment, even
    in the first second, or a full disk, it opens and plays in ffmpeg, mpv and libavformat with
    every fragment written (all but the last second or so). Such an AAC file starts with the
    encoder's 1024-sample delay, which only an edit list can hide: a normal stop copies the
    recording, packet for packet, into a plain MP4 whose edit list names that delay, beside it,
    and renames the copy over it, so the file is whole at every moment and decodes to exactly
    the captured frames (on a full disk the fragmented file stays). ALAC has no delay: its
    fragmented file, with the fragment index, is final. ALAC in CAF writes its packet table at
    the end, so only PCM CAF survives kill -9.

    A recording made inside a catalogued root is catalogued when it ends (a failure to do so is
    a warning; the recording is kept).
    """#)
}

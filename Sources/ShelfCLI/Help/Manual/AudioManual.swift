/// The sections of shelf-play(1) and shelf-record(1): what reaches the sound card, what a user
/// sees when a file or a device fails, and what a recording looks like on disk at every moment.
enum AudioManual {
  /// The extra sections of shelf-play(1).
  static let playSections: [ManSection] = [decoding, playback, mpris, playErrors]
  /// The extra sections of shelf-record(1).
  static let recordSections: [ManSection] = [recordingFiles, recordingFromAFile]

  static let decoding = ManSection(
    "Decoding",
    #"""
    Files are streamed block by block: memory stays flat however long the file. Gapless AAC
    plays exactly the duration times the rate in samples, and a CAF packet table's priming and
    remainder are trimmed too. Seeking is exact because FFmpeg seeks before the target and
    shelf decodes forward and discards. HE-AAC is decoded by FFmpeg but untested (Debian has no
    encoder for it). FFmpeg's own log is captured, never printed.
    """#)

  static let playback = ManSection(
    "Playback",
    #"""
    The codec's own sample type reaches ALSA as S16 for 16-bit samples, S32 for 24 and 32-bit
    ones and FLOAT for float and the lossy codecs (FFmpeg's planar output is only interleaved).
    libswresample converts only when a device cannot take that type, or takes neither the
    file's rate nor its channel count; it then uses FFmpeg's default resampling and remixing.

    Underruns and suspends are recovered (snd_pcm_recover); a device that vanishes is an error,
    not a busy loop. At the end the last period is padded with silence and drained with a time
    limit, so a stuck device cannot hang shelf.
    """#)

  static let mpris = ManSection(
    "MPRIS",
    #"""
    The object /org/mpris/MediaPlayer2 has the interfaces org.mpris.MediaPlayer2 (Identity
    'shelf', CanQuit true, CanRaise and HasTrackList false, no URI schemes or MIME types) and
    org.mpris.MediaPlayer2.Player. PlaybackStatus is Playing, Paused, or Stopped between
    tracks; Metadata holds mpris:trackid (/shelf/track/N, a new N at each start of a track),
    mpris:length, xesam:title, xesam:artist and xesam:album; Position and Volume (0 to 1,
    shelf's volume / 100) are read when asked. LoopStatus (Playlist with --repeat, else None),
    Shuffle, Rate, MinimumRate and MaximumRate (1) are read-only. PropertiesChanged is sent
    when PlaybackStatus, Metadata, Volume or CanSeek change (within 0.1 s), never for Position;
    Seeked after a seek. Seek past the end goes to the next track; SetPosition with another
    track's id is ignored; OpenUri is not supported. A request of the wrong type is answered
    with a D-Bus error.

    Tests run shelf against a private bus (dbus-daemon --session) and drive it with playerctl.
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
    The length header is kept current in WAV (RF64 too), AIFF, W64, AU and PCM CAF files: it is
    rewritten after every block.

    An M4A recording has an empty moov on disk before the first sample; each fragment is flushed
    to the file as it is written, so what ffmpeg, mpv and libavformat play after kill -9 or a
    full disk is all but the last second or so. Until the recording ends normally, an AAC file
    starts with the encoder's 1024-sample delay, which only an edit list can hide; the plain MP4
    that ends it is written beside the fragmented file and renamed over it, so the file is
    whole at every moment (on a full disk the fragmented file stays). ALAC has no delay: its
    fragmented file, with the fragment index, is final.

    A recording made inside a catalogued root is catalogued when it ends (a failure to do so is
    a warning; the recording is kept).
    """#)

  static let recordingFromAFile = ManSection(
    "Recording from a file",
    #"""
    The file: device only plays: record refuses it (exit 64), since ALSA would empty the file.
    To record from a file (raw samples in the requested format), give ALSA a device whose file
    plugin reads it through infile, in a configuration named by ALSA_CONFIG_PATH:

      </usr/share/alsa/alsa.conf>
      pcm.fromfile {
        type file; slave.pcm { type null }
        file "/dev/null"; infile "/tmp/input.raw"; format "raw"
      }

    then shelf record -D fromfile take.wav. Keep the recording shorter than the input: once it
    runs out, ALSA repeats stale data.
    """#)
}

#if canImport(Glibc)
  import Glibc
#endif

/// A file's ReplayGain 2.0 values (reference −18 LUFS): from its tags, or measured by `shelf gain`.
///
/// Gains are in dB, peaks linear (1.0 is full scale). Values read from files are hostile: the
/// parsers reject what is not a finite number, a gain beyond ±`gainLimit` dB and a peak that is
/// not in (0, `peakLimit`].
public struct ReplayGain: Sendable, Equatable {
  /// Where the values came from.
  public enum Source: String, Sendable {
    /// The file's own tags (Vorbis comments, ID3v2 TXXX, APEv2, MP4 freeform atoms, Opus R128).
    case tags
    /// Measured by `shelf gain` and kept in the catalogue.
    case measured
  }

  /// Which gain a player applies.
  public enum Mode: String, Sendable, CaseIterable {
    /// The track's gain (the album's when the track has none).
    case track
    /// The album's gain (the track's when the album has none).
    case album
    /// The album's gain when there is one, else the track's: the player resolves `auto` to
    /// `.track` itself when it plays tracks out of album order (shuffle, mixed queries).
    case auto
    /// No gain: the scale is 1.
    case off
  }

  /// The track's gain in dB.
  public var trackGain: Double?
  /// The track's peak, linear (true peak when measured).
  public var trackPeak: Double?
  /// The album's gain in dB.
  public var albumGain: Double?
  /// The album's peak, linear.
  public var albumPeak: Double?
  /// Where the values came from.
  public var source: Source

  /// The largest gain accepted, in dB either way: beyond it a value is garbage.
  public static let gainLimit = 60.0
  /// The largest peak accepted (linear; 100 is +40 dBFS, far beyond any real float file).
  public static let peakLimit = 100.0
  /// The loudness ReplayGain 2.0 brings a file to, in LUFS.
  public static let referenceLoudness = -18.0
  /// What EBU R128 gains (Opus `R128_*_GAIN`) are relative to, in LUFS.
  public static let r128Loudness = -23.0

  /// Creates values; the out-of-range ones are dropped (see `gainLimit`, `peakLimit`).
  public init(
    trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil,
    source: Source
  ) {
    self.trackGain = trackGain.flatMap(Self.checkedGain)
    self.trackPeak = trackPeak.flatMap(Self.checkedPeak)
    self.albumGain = albumGain.flatMap(Self.checkedGain)
    self.albumPeak = albumPeak.flatMap(Self.checkedPeak)
    self.source = source
  }

  /// Whether a gain is known (peaks alone cannot set a level).
  public var hasGain: Bool { trackGain != nil || albumGain != nil }

  /// The gain for `mode` in dB (nil when off, or when the file has neither gain).
  public func gain(for mode: Mode) -> Double? {
    switch mode {
    case .off: nil
    case .track: trackGain ?? albumGain
    case .album, .auto: albumGain ?? trackGain
    }
  }

  /// The peak that goes with `gain(for: mode)`: the album's with the album's gain, else the
  /// track's; the other one when that one is unknown.
  public func peak(for mode: Mode) -> Double? {
    switch mode {
    case .off: nil
    case .track: trackGain != nil ? (trackPeak ?? albumPeak) : (albumPeak ?? trackPeak)
    case .album, .auto: albumGain != nil ? (albumPeak ?? trackPeak) : (trackPeak ?? albumPeak)
    }
  }

  /// The linear factor to multiply samples by: 10^((gain + preamp) / 20), lowered to 1 / peak
  /// when that would push the peak over full scale (clipping prevention). 1 when `mode` is
  /// `.off` or no gain is known (the preamp applies only with a gain).
  public func scale(mode: Mode, preamp: Double = 0) -> Double {
    guard let gain = gain(for: mode), preamp.isFinite else { return 1 }
    var factor = Self.linear(decibels: gain + preamp)
    if let peak = peak(for: mode), peak * factor > 1 { factor = 1 / peak }
    return factor
  }

  /// 10^(dB / 20).
  public static func linear(decibels: Double) -> Double {
    pow(10, decibels / 20)
  }

  // MARK: Parsing tag values

  /// A gain written as ReplayGain tags write it: `-6.54 dB`, `+1.2 dB`, `-6.54` (the unit and
  /// spaces optional, `dB` in any case, a comma as the decimal separator accepted). Nil for
  /// anything else, or beyond `gainLimit`.
  public static func parseGain(_ text: String) -> Double? {
    var body = Substring(text).trimmingSpaces
    if body.count >= 2, body.suffix(2).lowercased() == "db" { body = body.dropLast(2).trimmingSpaces }
    return number(body).flatMap(checkedGain)
  }

  /// A peak as tags write it (`0.988`, `1.000000`); nil for anything else, ≤ 0 or beyond
  /// `peakLimit`.
  public static func parsePeak(_ text: String) -> Double? {
    number(Substring(text).trimmingSpaces).flatMap(checkedPeak)
  }

  /// An Opus `R128_TRACK_GAIN`/`R128_ALBUM_GAIN` value (a Q7.8 integer: 1/256 dB relative to
  /// −23 LUFS, RFC 7845) as a ReplayGain gain (relative to −18 LUFS: 5 dB more).
  public static func parseR128Gain(_ text: String) -> Double? {
    let body = Substring(text).trimmingSpaces
    let digits = body.first == "-" || body.first == "+" ? body.dropFirst() : body
    guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      let value = Int(body.first == "+" ? digits : body), value >= -32768, value <= 32767
    else { return nil }
    return checkedGain(Double(value) / 256 + (referenceLoudness - r128Loudness))
  }

  /// The values of a file's tags, looked up by name with `value` (which compares names
  /// case-insensitively): `REPLAYGAIN_TRACK_GAIN`, `…_TRACK_PEAK`, `…_ALBUM_GAIN`,
  /// `…_ALBUM_PEAK`, else Opus' `R128_TRACK_GAIN`/`R128_ALBUM_GAIN`. Nil without a usable gain.
  public static func fromTags(_ value: (String) -> String?) -> ReplayGain? {
    var found = ReplayGain(
      trackGain: value("replaygain_track_gain").flatMap(parseGain),
      trackPeak: value("replaygain_track_peak").flatMap(parsePeak),
      albumGain: value("replaygain_album_gain").flatMap(parseGain),
      albumPeak: value("replaygain_album_peak").flatMap(parsePeak), source: .tags)
    if found.trackGain == nil { found.trackGain = value("r128_track_gain").flatMap(parseR128Gain) }
    if found.albumGain == nil { found.albumGain = value("r128_album_gain").flatMap(parseR128Gain) }
    return found.hasGain ? found : nil
  }

  /// A gain in range, else nil.
  static func checkedGain(_ value: Double) -> Double? {
    value.isFinite && abs(value) <= gainLimit ? value : nil
  }

  /// A peak in range, else nil.
  static func checkedPeak(_ value: Double) -> Double? {
    value.isFinite && value > 0 && value <= peakLimit ? value : nil
  }

  /// A plain decimal number (sign, digits, one point or comma, digits; no exponent, no
  /// `nan`/`inf` spellings that `Double(_:)` accepts), at most 32 characters.
  private static func number(_ text: Substring) -> Double? {
    guard !text.isEmpty, text.count <= 32 else { return nil }
    var seenDigit = false
    var seenPoint = false
    var normalized = ""
    for (index, character) in text.enumerated() {
      if index == 0 && (character == "+" || character == "-") {
        if character == "-" { normalized.append("-") }
      } else if character >= "0" && character <= "9" && character.isASCII {
        seenDigit = true
        normalized.append(character)
      } else if (character == "." || character == ",") && !seenPoint {
        seenPoint = true
        normalized.append(".")
      } else {
        return nil
      }
    }
    return seenDigit ? Double(normalized) : nil
  }
}

extension Substring {
  /// Without leading and trailing spaces, tabs, NULs and line breaks.
  fileprivate var trimmingSpaces: Substring {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\0" || $0.isNewline }
    var trimmed = self.drop(while: blank)
    while let last = trimmed.last, blank(last) { trimmed = trimmed.dropLast() }
    return trimmed
  }
}

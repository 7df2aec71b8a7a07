/// Where a photo was taken: decimal degrees (north and east positive) and metres above sea
/// level (below it negative), signed by the EXIF `GPSLatitudeRef`/`GPSLongitudeRef`/
/// `GPSAltitudeRef` tags as exiftool's composite tags are.
public struct GPSPosition: Sendable, Equatable {
  public var latitude: Double
  public var longitude: Double
  public var altitude: Double?

  public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude
  }
}

/// What a photo's EXIF block says about when, with what and where it was taken, and which way
/// up it is; each fact nil when the block does not hold it (or holds nonsense).
public struct EXIFFacts: Sendable, Equatable {
  /// `DateTimeOriginal` in ISO-8601 (`2024-05-17T10:30:00`), with `OffsetTimeOriginal`
  /// appended (`+02:00`) when the camera recorded it: the local time the camera showed. Without
  /// it, XMP's `exif:DateTimeOriginal` or `photoshop:DateCreated`, then `CreateDate`
  /// (DateTimeDigitized, with OffsetTimeDigitized), as exiftool's composite tags fall back.
  public var taken: String?
  /// Make and model as one name (`Apple iPhone 12 Pro`); the make is not repeated when the
  /// model already starts with it (`Canon EOS 5D`, not `Canon Canon EOS 5D`).
  public var camera: String?
  /// `LensModel`, e.g. `iPhone 12 Pro back triple camera 4.2mm f/1.6`.
  public var lens: String?
  /// The EXIF orientation, 1 (upright) to 8; other values are dropped.
  public var orientation: Int?
  public var gps: GPSPosition?
  /// The `Software` that wrote the file (an iPhone writes its iOS version).
  public var software: String?
  /// Apple's content identifier (MakerNote tag 17), which a Live Photo's still shares with its
  /// movie.
  public var contentIdentifier: String?

  public init(
    taken: String? = nil, camera: String? = nil, lens: String? = nil, orientation: Int? = nil,
    gps: GPSPosition? = nil, software: String? = nil, contentIdentifier: String? = nil
  ) {
    self.taken = taken
    self.camera = camera
    self.lens = lens
    self.orientation = orientation
    self.gps = gps
    self.software = software
    self.contentIdentifier = contentIdentifier
  }

  /// True when no fact was found (such a block is not worth keeping).
  public var isEmpty: Bool { self == EXIFFacts() }

  /// One camera name from `Make` and `Model`, as exiftool users write it.
  static func cameraName(make: String?, model: String?) -> String? {
    guard let model, !model.isEmpty else { return make.flatMap { $0.isEmpty ? nil : $0 } }
    guard let make, !make.isEmpty else { return model }
    let makeWord = make.split(separator: " ").first.map { $0.lowercased() } ?? ""
    let loweredModel = model.lowercased()
    if loweredModel.hasPrefix(make.lowercased()) || (!makeWord.isEmpty && loweredModel.hasPrefix(makeWord)) {
      return model
    }
    return make + " " + model
  }

  /// `2024:05:17 10:30:00` (and `+02:00`) as `2024-05-17T10:30:00+02:00`; nil for a date that
  /// is blank, zero (`0000:00:00 00:00:00`, what cameras write when unset) or malformed.
  static func isoDate(_ exifDate: String?, offset: String?) -> String? {
    guard let exifDate else { return nil }
    let bytes = Array(exifDate.utf8)
    guard bytes.count >= 19 else { return nil }
    let digitPositions = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
    guard digitPositions.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }),
      bytes[4] == UInt8(ascii: ":") || bytes[4] == UInt8(ascii: "-"),
      bytes[7] == bytes[4], bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
      bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
    else { return nil }
    func number(_ start: Int, _ count: Int) -> Int {
      bytes[start..<start + count].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
    let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
    guard year > 0, (1...12).contains(month), (1...31).contains(day), number(11, 2) < 24,
      number(14, 2) < 60, number(17, 2) < 61
    else { return nil }
    let date =
      String(decoding: bytes[0..<4], as: UTF8.self) + "-"
      + String(decoding: bytes[5..<7], as: UTF8.self) + "-" + String(decoding: bytes[8..<10], as: UTF8.self)
      + "T" + String(decoding: bytes[11..<19], as: UTF8.self)
    guard let offset, isOffset(offset) else { return date }
    return date + offset
  }

  /// An XMP date (`2024-05-17T10:30:00.25+02:00`) as `2024-05-17T10:30:00+02:00`: fractions of
  /// a second are dropped, as from EXIF dates; nil for a date without seconds or malformed.
  static func isoDate(xmp value: String?) -> String? {
    guard let value else { return nil }
    var rest = Array(value.utf8).dropFirst(19)
    if rest.first == UInt8(ascii: ".") {
      rest = rest.dropFirst()
      while let first = rest.first, (0x30...0x39).contains(first) { rest = rest.dropFirst() }
    }
    return isoDate(value, offset: rest.isEmpty ? nil : String(decoding: rest, as: UTF8.self))
  }

  /// `+02:00`, `-05:30`, or `Z`.
  private static func isOffset(_ text: String) -> Bool {
    if text == "Z" { return true }
    let bytes = Array(text.utf8)
    guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
      bytes[3] == UInt8(ascii: ":")
    else { return false }
    return [1, 2, 4, 5].allSatisfy { (0x30...0x39).contains(bytes[$0]) }
  }
}

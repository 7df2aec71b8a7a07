import ShelfAudio

/// Musepack SV8 stream headers (`MusepackHeader.read`).
enum MusepackTarget: FuzzTarget {
  static let name = "musepack"
  static func run(_ input: [UInt8]) {
    _ = MusepackHeader.read(FuzzInput.file(input))
  }
}

import ShelfAudio

/// AAC ADIF headers: the header alone (`ADIFHeader.parse`) and a file's facts
/// (`ADIFHeader.info`, after a leading ID3v2 tag).
enum ADIFTarget: FuzzTarget {
  static let name = "adif"
  static func run(_ input: [UInt8]) {
    _ = try? ADIFHeader.parse(input)
    _ = try? ADIFHeader.info(FuzzInput.file(input))
  }
}

import ShelfAudio

/// MPEG audio frames (`MP3Scanner.scan`) and ID3v1/ID3v2 tags (`ID3Reader`), over a file.
enum MP3Target: FuzzTarget {
  static let name = "mp3"
  static func run(_ input: [UInt8]) {
    let file = FuzzInput.file(input)
    _ = try? MP3Scanner.scan(file)
    _ = try? ID3Reader.found(in: file)
    _ = ID3Reader.parse(tag: input)
  }
}

import ShelfAudio

/// RIFF and RF64 chunk walks (`WAVDataChunk.find`) and the truncation check.
enum WAVTarget: FuzzTarget {
  static let name = "wav"
  static func run(_ input: [UInt8]) {
    let file = FuzzInput.file(input)
    guard let chunk = try? WAVDataChunk.find(in: file) else { return }
    _ = chunk.truncation(of: file)
  }
}

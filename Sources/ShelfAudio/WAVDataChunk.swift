import ShelfCore

/// Where the samples of a RIFF or RF64 WAVE file start and how many bytes its header says they
/// take, read from the chunk headers.
///
/// libsndfile quietly shortens a `data` chunk that claims more bytes than the file holds and
/// reports the frames present, so a file cut short (a copy interrupted, a download stopped)
/// would otherwise pass for whole.
package struct WAVDataChunk: Equatable {
  /// The offset of the first sample byte.
  var offset: Int64
  /// The chunk's size as its header (or, in RF64, the `ds64` chunk) declares it.
  var declaredSize: Int64

  /// A plain RIFF header's "length unknown" value, written by tools that stream a WAV to a pipe.
  private static let unknownSize: Int64 = 0xFFFF_FFFF
  /// Chunks looked at before giving up on finding `data` (a hostile file may hold millions).
  private static let chunkLimit = 256

  /// The `data` chunk of `file`, or nil when it is not a RIFF/RF64 WAVE file, the chunk is not
  /// found, or its length is marked unknown.
  package static func find(in file: RegularFile) throws(FileError) -> WAVDataChunk? {
    let header = try file.read(count: 12, at: 0)
    guard header.count == 12, Array(header[8..<12]) == Array("WAVE".utf8) else { return nil }
    let isRF64 = Array(header[0..<4]) == Array("RF64".utf8)
    guard isRF64 || Array(header[0..<4]) == Array("RIFF".utf8) else { return nil }
    var rf64DataSize: Int64?
    var offset: Int64 = 12
    for _ in 0..<chunkLimit {
      let chunkHeader = try file.read(count: 8, at: offset)
      guard chunkHeader.count == 8 else { return nil }
      let id = String(decoding: chunkHeader[0..<4], as: UTF8.self)
      let size = Int64(littleEndian32(chunkHeader, at: 4))
      if id == "ds64" {
        let body = try file.read(count: 16, at: offset + 8)
        if body.count == 16 { rf64DataSize = Int64(bitPattern: littleEndian64(body, at: 8)) }
      } else if id == "data" {
        if isRF64 && size == unknownSize {
          guard let rf64DataSize else { return nil }
          return WAVDataChunk(offset: offset + 8, declaredSize: rf64DataSize)
        }
        guard size != unknownSize else { return nil }
        return WAVDataChunk(offset: offset + 8, declaredSize: size)
      }
      // Chunks are padded to an even length.
      offset += 8 + size + (size & 1)
    }
    return nil
  }

  /// The error for a file that holds fewer sample bytes than this chunk declares, or nil.
  package func truncation(of file: RegularFile) -> AudioError? {
    let present = max(0, file.status.size - offset)
    guard declaredSize > present else { return nil }
    return AudioError(
      path: file.path, reason: .damaged,
      message: "truncated: data chunk declares \(declaredSize) bytes, file holds \(present)")
  }

  private static func littleEndian32(_ bytes: [UInt8], at index: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[index + $1]) << (8 * $1) }
  }

  private static func littleEndian64(_ bytes: [UInt8], at index: Int) -> UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(bytes[index + $1]) << (8 * $1) }
  }
}

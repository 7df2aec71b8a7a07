import ShelfCore
import ShelfFacts

/// A text file decoded into what a terminal may print, a block at a time: `show` holds one
/// block's text, never the file's (a 1.2 GB file of one line needed twice its size).
struct VisibleText {
  private let file: RegularFile
  private let decoder: TextDecoder
  private let terminal: Bool
  private let endWithNewline: Bool
  private var offset: Int64
  private var scalars: [UInt32] = []
  private var afterCR = false
  private var lastWasNewline = false
  private var emitted = false
  private var ended = false
  /// The bytes decoded at a time.
  static let blockSize = 1 << 20

  /// Prepares to decode `file` from `encoding` (UTF-8 when nil); `terminal`: a carriage return
  /// before a line feed is dropped rather than kept; `endWithNewline`: a last line without a
  /// line feed gets one.
  init(_ file: RegularFile, encoding: DetectedEncoding?, terminal: Bool, endWithNewline: Bool) throws {
    let detected = encoding ?? DetectedEncoding(encoding: .utf8, bom: false)
    self.file = file
    decoder = try TextDecoder(detected.encoding)
    offset = Int64(detected.bomLength)
    self.terminal = terminal
    self.endWithNewline = endWithNewline
  }

  /// The next piece of printable text, or nil at the end of the file.
  mutating func next() throws -> String? {
    guard !ended else { return nil }
    var output = ""
    while output.isEmpty {
      let block = offset < file.status.size ? try file.read(count: Self.blockSize, at: offset) : []
      offset += Int64(block.count)
      let final = block.isEmpty || offset >= file.status.size
      scalars.removeAll(keepingCapacity: true)
      decoder.decode(block[...], final: final, into: &scalars)
      for value in scalars {
        if afterCR {
          // A line ending CR LF stays one into a pipe and becomes LF on a terminal.
          if value != 0x0A {
            output += "^M"
          } else if !terminal {
            output += "\r"
          }
        }
        afterCR = value == 0x0D
        Self.appendVisible(value, to: &output)
      }
      if final {
        if afterCR { output += "^M" }
        if let last = output.utf8.last { (lastWasNewline, emitted) = (last == 0x0A, true) }
        if endWithNewline && emitted && !lastWasNewline { output += "\n" }
        ended = true
        return output.isEmpty ? nil : output
      }
    }
    if let last = output.utf8.last { (lastWasNewline, emitted) = (last == 0x0A, true) }
    return output
  }

  /// One decoded character as the terminal may print it: controls in caret notation
  /// (`^[`, `^?`; C1 controls as `M-^[`), an undecodable byte as `\xNN`; a carriage return is
  /// left to the caller (dropped before a line feed).
  static func appendVisible(_ value: UInt32, to output: inout String) {
    if value >= TextDecoder.invalidByteBase {
      let byte = value - TextDecoder.invalidByteBase
      output += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
    } else if value == 0x0D {
      return
    } else if value == 0x0A || value == 0x09 || (value >= 0x20 && value < 0x7F) || value >= 0xA0 {
      output.unicodeScalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
    } else if value == 0x7F {
      output += "^?"
    } else if value >= 0x80 {
      output += "M-^" + String(Unicode.Scalar(UInt8(value - 0x80 + 0x40)))
    } else {
      output += "^" + String(Unicode.Scalar(UInt8(value + 0x40)))
    }
  }
}

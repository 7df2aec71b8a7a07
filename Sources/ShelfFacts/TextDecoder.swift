import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Decodes text in any `TextEncoding` to Unicode scalar values, block by block, so that a file
/// of any size can be counted, indexed or shown in bounded memory.
///
/// UTF-8, ASCII and HZ's escapes are decoded here; every other encoding through glibc's iconv,
/// under the superset name WHATWG prescribes (`shift_jis` as windows-31j, `euc-kr` as
/// windows-949, …), and HZ's GB2312 pairs as EUC-CN.
/// A byte that does not decode becomes `invalidByteBase + byte`, a value above Unicode's range,
/// so that callers can mark it visibly and count it as one character.
public final class TextDecoder {
  /// Undecodable bytes are returned as this plus the byte's value, in every encoding as in
  /// UTF-8 (`UTF8Scalars`).
  public static let invalidByteBase: UInt32 = UTF8Scalars.invalidByteBase

  public let encoding: TextEncoding
  private let converter: iconv_t?
  /// For single-byte encodings: each byte's scalar value (or an invalid-byte mark), so that
  /// every byte is one character (iconv would compose Vietnamese and Hebrew marks).
  private let table: [UInt32]?
  /// An incomplete sequence at the end of the last block, waiting for the next.
  private var pending: [UInt8] = []
  /// HZ only: between `~{` and `~}`, where bytes come in GB2312 pairs.
  private var inGBPairs = false

  /// A decoder for `encoding`; throws when glibc's iconv does not know it.
  public init(_ encoding: TextEncoding) throws {
    self.encoding = encoding
    if encoding == .ascii || encoding == .utf8 {
      converter = nil
      table = nil
      return
    }
    if encoding.isSingleByte {
      converter = nil
      table = try ConverterCache.table(encoding)
    } else {
      converter = try ConverterCache.take(encoding)
      table = nil
    }
  }

  deinit {
    if let converter { ConverterCache.give(converter, encoding) }
  }

  /// Decodes `bytes` after what earlier calls left, appending scalar values to `output`. An
  /// incomplete sequence at the end waits for the next call unless `final` is true, when its
  /// bytes count as undecodable.
  public func decode(_ bytes: ArraySlice<UInt8>, final: Bool, into output: inout [UInt32]) {
    var input = pending
    pending = []
    input.append(contentsOf: bytes)
    if let table {
      output.reserveCapacity(output.count + input.count)
      for byte in input {
        output.append(table[Int(byte)])
      }
    } else if converter == nil {
      decodeUTF8(input, final: final, into: &output)
    } else if encoding == .hzGB2312 {
      decodeHZ(input, final: final, into: &output)
    } else {
      decodeWithIconv(input, final: final, into: &output)
    }
  }

  /// Decodes a whole byte string at once.
  public func decodeAll(_ bytes: [UInt8]) -> [UInt32] {
    var output: [UInt32] = []
    output.reserveCapacity(bytes.count)
    decode(bytes[...], final: true, into: &output)
    return output
  }

  private func decodeUTF8(_ input: [UInt8], final: Bool, into output: inout [UInt32]) {
    let end = UTF8Scalars.appendUnits(of: input, to: &output, holdingCutEnd: !final)
    if end < input.count { pending = Array(input[end...]) }
  }

  /// HZ (RFC 1843), as Python's `hz` codec reads it: ASCII, where `~~` is a tilde, `~` and a
  /// line feed continue the line and `~{` starts GB2312 pairs of bytes 0x21–0x7E, which `~}`
  /// ends. Any other byte after a tilde, a high byte, or a pair GB2312 lacks, does not decode.
  private func decodeHZ(_ input: [UInt8], final: Bool, into output: inout [UInt32]) {
    let tilde = UInt8(ascii: "~")
    var pairs: [UInt8] = []
    func flushPairs() {
      guard !pairs.isEmpty else { return }
      decodeWithIconv(pairs, final: true, into: &output)
      pairs.removeAll(keepingCapacity: true)
    }
    var index = 0
    while index < input.count {
      let byte = input[index]
      let needed = byte == tilde || inGBPairs ? 2 : 1
      if index + needed > input.count {
        if final {
          flushPairs()
          for leftover in input[index...] { invalid(leftover, into: &output) }
        } else {
          pending = Array(input[index...])
        }
        break
      }
      if byte == tilde {
        switch (input[index + 1], inGBPairs) {
        case (tilde, false): output.append(UInt32(tilde))
        case (UInt8(ascii: "{"), false): inGBPairs = true
        case (0x0A, false): break
        case (UInt8(ascii: "}"), true):
          flushPairs()
          inGBPairs = false
        default:
          flushPairs()
          invalid(byte, into: &output)
          index += 1
          continue
        }
        index += 2
      } else if inGBPairs {
        let second = input[index + 1]
        if (0x21...0x7E).contains(byte) && (0x21...0x7E).contains(second) {
          pairs += [byte | 0x80, second | 0x80]
        } else {
          flushPairs()
          invalid(byte, into: &output)
          invalid(second, into: &output)
        }
        index += 2
      } else {
        if byte < 0x80 { output.append(UInt32(byte)) } else { invalid(byte, into: &output) }
        index += 1
      }
    }
    flushPairs()
    if final { inGBPairs = false }
  }

  private func decodeWithIconv(_ input: [UInt8], final: Bool, into output: inout [UInt32]) {
    guard let converter, !input.isEmpty else { return }
    var buffer = [UInt8](repeating: 0, count: max(64, input.count * 4 + 16))
    var consumed = 0
    input.withUnsafeBufferPointer { source in
      buffer.withUnsafeMutableBytes { target in
        while consumed < source.count {
          var inPointer = UnsafeMutablePointer(
            mutating: UnsafeRawPointer(source.baseAddress! + consumed).assumingMemoryBound(to: CChar.self))
          var inLeft = source.count - consumed
          var outPointer: UnsafeMutablePointer<CChar>? = target.baseAddress!.assumingMemoryBound(
            to: CChar.self)
          var outLeft = target.count
          var inOptional: UnsafeMutablePointer<CChar>? = inPointer
          let result = iconv(converter, &inOptional, &inLeft, &outPointer, &outLeft)
          let failure = result == -1 ? errno : 0
          inPointer = inOptional!
          let produced = (target.count - outLeft) / 4
          for unit in 0..<produced {
            output.append(target.load(fromByteOffset: unit * 4, as: UInt32.self).littleEndian)
          }
          consumed = source.count - inLeft
          switch failure {
          case 0, E2BIG:
            continue
          case EINVAL:
            // An incomplete sequence at the end of the input. It waits for the next block
            // with the converter's shift state kept: resetting it here would read the rest
            // of an ISO-2022 line as ASCII.
            if final {
              for byte in source[consumed...] { invalid(byte, into: &output) }
            } else {
              pending = Array(source[consumed...])
            }
            consumed = source.count
          default:
            invalid(source[consumed], into: &output)
            consumed += 1
          }
        }
      }
    }
    if final {
      // Flush a stateful encoding's shift state (ISO-2022) for the next file.
      iconv(converter, nil, nil, nil, nil)
    }
  }

  @inline(__always)
  private func invalid(_ byte: UInt8, into output: inout [UInt32]) {
    output.append(Self.invalidByteBase + UInt32(byte))
  }
}

/// The iconv converters and byte tables of decoders, kept for the life of the process: the
/// sniffer tries several encodings on a file, and each `iconv_open` loaded the encoding's gconv
/// module (each `iconv_close` of the last converter unloaded it) and parsed its name, while a
/// single-byte table took 768 conversions to build: a tenth of indexing a folder of small texts.
private enum ConverterCache {
  /// An open converter, in its initial shift state.
  struct Converter: @unchecked Sendable { let handle: iconv_t }

  /// Converters not in use, by encoding (a few each: decoders of one encoding rarely overlap).
  static let idle = Mutex<[TextEncoding: [Converter]]>([:])
  static let tables = Mutex<[TextEncoding: [UInt32]]>([:])
  static let idleLimit = 4

  /// A converter to UTF-32LE from `encoding`: an idle one, or a new one.
  static func take(_ encoding: TextEncoding) throws -> iconv_t {
    if let kept = idle.withLock({ $0[encoding]?.popLast() }) { return kept.handle }
    return try open(encoding)
  }

  /// Hands back a converter `take` gave: reset, kept for the next decoder or closed.
  static func give(_ handle: iconv_t, _ encoding: TextEncoding) {
    iconv(handle, nil, nil, nil, nil)
    let kept = idle.withLock {
      guard $0[encoding, default: []].count < idleLimit else { return false }
      $0[encoding, default: []].append(Converter(handle: handle))
      return true
    }
    if !kept { iconv_close(handle) }
  }

  static func open(_ encoding: TextEncoding) throws -> iconv_t {
    let handle = iconv_open("UTF-32LE", encoding.iconvName)
    guard let handle, Int(bitPattern: handle) != -1 else {
      throw HeaderError("iconv cannot decode \(encoding.rawValue)")
    }
    return handle
  }

  /// Each byte's scalar value in the single-byte `encoding` (or an invalid-byte mark), made
  /// once per process.
  static func table(_ encoding: TextEncoding) throws -> [UInt32] {
    if let table = tables.withLock({ $0[encoding] }) { return table }
    let handle = try take(encoding)
    defer { give(handle, encoding) }
    let table = (0..<256).map { byte in
      var input = [CChar(bitPattern: UInt8(byte))]
      var output = [UInt32](repeating: 0, count: 4)
      return input.withUnsafeMutableBufferPointer { source in
        output.withUnsafeMutableBytes { target in
          var inPointer: UnsafeMutablePointer<CChar>? = source.baseAddress
          var inLeft = 1
          var outPointer: UnsafeMutablePointer<CChar>? = target.baseAddress!.assumingMemoryBound(
            to: CChar.self)
          var outLeft = target.count
          let result = iconv(handle, &inPointer, &inLeft, &outPointer, &outLeft)
          // A byte held back to compose with a following mark comes out on the flush.
          iconv(handle, nil, nil, &outPointer, &outLeft)
          iconv(handle, nil, nil, nil, nil)
          guard result != -1, outLeft == target.count - 4 else {
            return TextDecoder.invalidByteBase + UInt32(byte)
          }
          return target.load(as: UInt32.self).littleEndian
        }
      }
    }
    tables.withLock { $0[encoding] = table }
    return table
  }
}

/// Converts text to another codeset for output, through glibc's iconv.
public enum TextTranscoder {
  /// `text` in `codeset` (an iconv name such as `KOI8-R`); characters the codeset lacks are
  /// transliterated or become `?`. Unknown codesets give UTF-8.
  public static func encode(_ text: String, to codeset: String) -> [UInt8] {
    let utf8 = Array(text.utf8)
    guard let converter = iconv_open(codeset + "//TRANSLIT", "UTF-8"), Int(bitPattern: converter) != -1
    else { return utf8 }
    defer { iconv_close(converter) }
    var output: [UInt8] = []
    output.reserveCapacity(utf8.count)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var consumed = 0
    utf8.withUnsafeBufferPointer { source in
      buffer.withUnsafeMutableBytes { target in
        while consumed < source.count {
          var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(
            mutating: UnsafeRawPointer(source.baseAddress! + consumed).assumingMemoryBound(to: CChar.self))
          var inLeft = source.count - consumed
          var outPointer: UnsafeMutablePointer<CChar>? = target.baseAddress!.assumingMemoryBound(
            to: CChar.self)
          var outLeft = target.count
          let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
          let failure = result == -1 ? errno : 0
          output.append(contentsOf: target.prefix(target.count - outLeft))
          consumed = source.count - inLeft
          if failure != 0 && failure != E2BIG {
            // A character the codeset cannot hold even transliterated: a question mark.
            output.append(0x3F)
            consumed += 1
            while consumed < source.count && source[consumed] & 0xC0 == 0x80 { consumed += 1 }
          }
        }
      }
    }
    return output
  }
}

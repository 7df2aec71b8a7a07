/// A property-list value, as XML and binary plists hold them.
public indirect enum PlistValue: Sendable, Equatable {
  case string(String)
  case integer(Int64)
  case real(Double)
  case boolean(Bool)
  /// Seconds since 2001-01-01 00:00:00 UTC (Apple's reference date) for binary plists; XML
  /// dates keep their ISO-8601 text in `dateText`.
  case date(seconds: Double)
  case dateText(String)
  case data([UInt8])
  case array([PlistValue])
  /// Keys and values in file order.
  case dictionary([(String, PlistValue)])
  case uid(UInt64)
  case null

  /// The type name used in catalogue records: `dictionary`, `array`, `string`, …
  public var typeName: String {
    switch self {
    case .string: "string"
    case .integer: "integer"
    case .real: "real"
    case .boolean: "boolean"
    case .date, .dateText: "date"
    case .data: "data"
    case .array: "array"
    case .dictionary: "dictionary"
    case .uid: "uid"
    case .null: "null"
    }
  }

  /// The value for `key` when this is a dictionary.
  public subscript(key: String) -> PlistValue? {
    guard case .dictionary(let pairs) = self else { return nil }
    return pairs.first { $0.0 == key }?.1
  }

  /// The string when this is a string.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
    switch (lhs, rhs) {
    case (.string(let a), .string(let b)): a == b
    case (.integer(let a), .integer(let b)): a == b
    case (.real(let a), .real(let b)): a == b
    case (.boolean(let a), .boolean(let b)): a == b
    case (.date(let a), .date(let b)): a == b
    case (.dateText(let a), .dateText(let b)): a == b
    case (.data(let a), .data(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.dictionary(let a), .dictionary(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    case (.uid(let a), .uid(let b)): a == b
    case (.null, .null): true
    default: false
    }
  }
}

/// The two encodings of a property list, by the names the catalogue stores and queries compare
/// (`plist:binary`), in documented order.
public enum PlistFormat: String, CaseIterable, Sendable {
  case xml, binary
}

/// A parsed property list and the format it came in.
///
/// It lives in ShelfCore because both the catalogue (plist facts, bundle identities) and the
/// backup reader (Info.plist, keybags, NSKeyedArchiver records) parse property lists.
public struct PropertyList: Sendable {
  public var format: PlistFormat
  public var root: PlistValue

  /// Wraps a parsed root value.
  public init(format: PlistFormat, root: PlistValue) {
    self.format = format
    self.root = root
  }

  /// The largest property list parsed whole.
  public static let sizeLimit: Int64 = 32 << 20
  /// The most values parsed, however the file shares them (bounds "billion laughs" files).
  public static let valueLimit = 2_000_000
  /// The deepest nesting accepted.
  public static let depthLimit = 512

  /// Parses an XML or binary plist held in memory.
  public static func parse(_ bytes: [UInt8]) throws -> PropertyList {
    if bytes.starts(with: Array("bplist0".utf8)) {
      var parser = BinaryPlistParser(bytes)
      return PropertyList(format: .binary, root: try parser.parse())
    }
    var parser = XMLPlistParser(bytes)
    return PropertyList(format: .xml, root: try parser.parse())
  }
}

/// Parses `bplist00` files, checking every offset and count against the file and refusing
/// reference cycles.
struct BinaryPlistParser {
  let bytes: [UInt8]
  var offsetSize = 0
  var refSize = 0
  var objectCount = 0
  var tableOffset = 0
  var decoded = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  mutating func parse() throws -> PlistValue {
    guard bytes.count >= 8 + 32 + 1 else { throw HeaderError("truncated binary plist") }
    let trailer = bytes.count - 32
    offsetSize = Int(bytes[trailer + 6])
    refSize = Int(bytes[trailer + 7])
    let count = sized(trailer + 8, 8)
    let top = sized(trailer + 16, 8)
    let table = sized(trailer + 24, 8)
    guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
      throw HeaderError("corrupt binary plist: bad integer sizes in trailer")
    }
    guard count >= 1, count < UInt64(bytes.count), top < count else {
      throw HeaderError("corrupt binary plist: bad object count")
    }
    guard table >= 9, table < UInt64(trailer), table + count * UInt64(offsetSize) <= UInt64(trailer) else {
      throw HeaderError("corrupt binary plist: offset table past the end")
    }
    objectCount = Int(count)
    tableOffset = Int(table)
    var visiting = Set<Int>()
    return try object(Int(top), depth: 0, visiting: &visiting)
  }

  private func sized(_ offset: Int, _ size: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
    return value
  }

  /// The object reference (`refSize` bytes) at `offset`, checked against the object count
  /// before it becomes an `Int`: a reference of 2^63 or more would trap the conversion.
  private func reference(at offset: Int) throws -> Int {
    let value = sized(offset, refSize)
    guard value < UInt64(objectCount) else {
      throw HeaderError("corrupt binary plist: reference \(value) past the object table")
    }
    return Int(value)
  }

  private func objectOffset(_ index: Int) throws -> Int {
    let value = sized(tableOffset + index * offsetSize, offsetSize)
    guard value >= 8, value < UInt64(tableOffset) else {
      throw HeaderError("corrupt binary plist: object offset past the end")
    }
    return Int(value)
  }

  /// Reads the count after a marker whose low nibble is 0xF.
  private func count(_ info: Int, at offset: Int) throws -> (count: Int, start: Int) {
    if info != 0xF { return (info, offset + 1) }
    guard offset + 1 < tableOffset else { throw HeaderError("corrupt binary plist: count past the end") }
    let marker = bytes[offset + 1]
    guard marker >> 4 == 1 else { throw HeaderError("corrupt binary plist: bad count") }
    let size = 1 << Int(marker & 0xF)
    guard size <= 8, offset + 2 + size <= tableOffset else {
      throw HeaderError("corrupt binary plist: count past the end")
    }
    let value = sized(offset + 2, size)
    guard value < UInt64(bytes.count) else { throw HeaderError("corrupt binary plist: count too large") }
    return (Int(value), offset + 2 + size)
  }

  private mutating func object(_ index: Int, depth: Int, visiting: inout Set<Int>) throws -> PlistValue {
    guard index < objectCount else {
      throw HeaderError("corrupt binary plist: reference past the object table")
    }
    guard depth < PropertyList.depthLimit else { throw HeaderError("binary plist nested too deeply") }
    decoded += 1
    guard decoded <= PropertyList.valueLimit else { throw HeaderError("binary plist has too many values") }
    let offset = try objectOffset(index)
    let marker = bytes[offset]
    let info = Int(marker & 0xF)
    func need(_ length: Int, from start: Int) throws {
      guard length >= 0, start <= tableOffset, length <= tableOffset - start else {
        throw HeaderError("corrupt binary plist: object runs past the end")
      }
    }
    switch marker >> 4 {
    case 0x0:
      switch marker {
      case 0x08: return .boolean(false)
      case 0x09: return .boolean(true)
      default: return .null
      }
    case 0x1:
      // 1, 2, 4 and 8 bytes, and 16 (a 128-bit integer, of which the low 8 bytes are kept, as
      // CoreFoundation writes a UInt64 beyond Int64.max); a larger size is no integer at all.
      guard info <= 4 else {
        throw HeaderError("corrupt binary plist: integer of \(1 << info) bytes at byte \(offset)")
      }
      let size = 1 << info
      try need(size, from: offset + 1)
      if size > 8 { return .integer(Int64(bitPattern: sized(offset + 1 + size - 8, 8))) }
      let raw = sized(offset + 1, size)
      return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
    case 0x2:
      let size = 1 << info
      try need(size, from: offset + 1)
      if size == 4 { return .real(Double(Float(bitPattern: UInt32(sized(offset + 1, 4))))) }
      guard size == 8 else { throw HeaderError("corrupt binary plist: bad real size") }
      return .real(Double(bitPattern: sized(offset + 1, 8)))
    case 0x3:
      try need(8, from: offset + 1)
      return .date(seconds: Double(bitPattern: sized(offset + 1, 8)))
    case 0x4:
      let (length, start) = try count(info, at: offset)
      try need(length, from: start)
      return .data(Array(bytes[start..<start + length]))
    case 0x5:
      let (length, start) = try count(info, at: offset)
      try need(length, from: start)
      return .string(String(decoding: bytes[start..<start + length], as: UTF8.self))
    case 0x6:
      let (length, start) = try count(info, at: offset)
      try need(length * 2, from: start)
      var units: [UInt16] = []
      units.reserveCapacity(length)
      for unit in 0..<length {
        units.append(UInt16(bytes[start + 2 * unit]) << 8 | UInt16(bytes[start + 2 * unit + 1]))
      }
      return .string(String(decoding: units, as: UTF16.self))
    case 0x7:
      let (length, start) = try count(info, at: offset)
      try need(length, from: start)
      return .string(String(decoding: bytes[start..<start + length], as: UTF8.self))
    case 0x8:
      try need(info + 1, from: offset + 1)
      return .uid(sized(offset + 1, min(info + 1, 8)))
    case 0xA, 0xB, 0xC, 0xD:
      let (length, start) = try count(info, at: offset)
      let isDictionary = marker >> 4 == 0xD
      let (references, overflow) = length.multipliedReportingOverflow(by: refSize * (isDictionary ? 2 : 1))
      guard !overflow else { throw HeaderError("corrupt binary plist: object runs past the end") }
      try need(references, from: start)
      guard visiting.insert(index).inserted else {
        throw HeaderError("corrupt binary plist: reference cycle")
      }
      defer { visiting.remove(index) }
      if isDictionary {
        var pairs: [(String, PlistValue)] = []
        pairs.reserveCapacity(length)
        for item in 0..<length {
          let keyRef = try reference(at: start + item * refSize)
          let valueRef = try reference(at: start + (length + item) * refSize)
          let key = try object(keyRef, depth: depth + 1, visiting: &visiting)
          guard case .string(let name) = key else {
            throw HeaderError("corrupt binary plist: dictionary key is not a string")
          }
          pairs.append((name, try object(valueRef, depth: depth + 1, visiting: &visiting)))
        }
        return .dictionary(pairs)
      }
      var items: [PlistValue] = []
      items.reserveCapacity(length)
      for item in 0..<length {
        let ref = try reference(at: start + item * refSize)
        items.append(try object(ref, depth: depth + 1, visiting: &visiting))
      }
      return .array(items)
    default:
      throw HeaderError("corrupt binary plist: unknown object type 0x\(String(marker, radix: 16))")
    }
  }
}

/// Parses XML property lists: a small recursive-descent reader of the plist DTD's elements,
/// with entity and CDATA handling and a depth limit.
struct XMLPlistParser {
  let bytes: [UInt8]
  var position = 0
  var values = 0

  init(_ bytes: [UInt8]) {
    self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
  }

  mutating func parse() throws -> PlistValue {
    // Skip the prolog, doctype and comments up to <plist>.
    while true {
      skipSpace()
      guard position < bytes.count else { throw HeaderError("XML plist has no <plist> element") }
      if hasPrefix("<?") {
        try skip(past: "?>")
      } else if hasPrefix("<!--") {
        try skip(past: "-->")
      } else if hasPrefix("<!") {
        try skip(past: ">")
      } else {
        break
      }
    }
    let tag = try readTag()
    if tag.name == "plist" {
      if tag.selfClosing { return .null }
      skipMisc()
      if hasPrefix("</plist") { return .null }
      let root = try value(depth: 0)
      skipMisc()
      let close = try readTag()
      guard close.closing && close.name == "plist" else {
        throw HeaderError("XML plist: expected </plist>, found <\(close.name)>")
      }
      return root
    }
    // A bare value without a <plist> wrapper.
    return try value(startingWith: tag, depth: 0)
  }

  private struct Tag {
    var name: String
    var closing: Bool
    var selfClosing: Bool
  }

  private func hasPrefix(_ text: String) -> Bool {
    let utf8 = Array(text.utf8)
    guard position + utf8.count <= bytes.count else { return false }
    return bytes[position..<position + utf8.count].elementsEqual(utf8)
  }

  private mutating func skip(past text: String) throws {
    let utf8 = Array(text.utf8)
    while position + utf8.count <= bytes.count {
      if bytes[position..<position + utf8.count].elementsEqual(utf8) {
        position += utf8.count
        return
      }
      position += 1
    }
    throw HeaderError("XML plist: unterminated markup (missing \(text))")
  }

  private mutating func skipSpace() {
    while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
  }

  private mutating func skipMisc() {
    while true {
      skipSpace()
      if hasPrefix("<!--") {
        if (try? skip(past: "-->")) == nil { return }
      } else {
        return
      }
    }
  }

  private mutating func readTag() throws -> Tag {
    guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else {
      throw HeaderError("XML plist: expected an element at byte \(position)")
    }
    position += 1
    var closing = false
    if position < bytes.count && bytes[position] == UInt8(ascii: "/") {
      closing = true
      position += 1
    }
    let start = position
    while position < bytes.count,
      !([0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[position]))
    {
      position += 1
    }
    let name = String(decoding: bytes[start..<position], as: UTF8.self)
    var selfClosing = false
    while position < bytes.count && bytes[position] != UInt8(ascii: ">") {
      if bytes[position] == UInt8(ascii: "/") {
        selfClosing = true
      } else if bytes[position] == UInt8(ascii: "\"") {
        position += 1
        while position < bytes.count && bytes[position] != UInt8(ascii: "\"") { position += 1 }
      }
      position += 1
    }
    guard position < bytes.count else { throw HeaderError("XML plist: truncated element <\(name)>") }
    position += 1
    return Tag(name: name, closing: closing, selfClosing: selfClosing)
  }

  /// Reads character data up to the next `<` that is not CDATA, resolving entities.
  private mutating func text() throws -> String {
    var out: [UInt8] = []
    while position < bytes.count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "<") {
        if hasPrefix("<![CDATA[") {
          position += 9
          let start = position
          try skip(past: "]]>")
          out += bytes[start..<position - 3]
          continue
        }
        if hasPrefix("<!--") {
          try skip(past: "-->")
          continue
        }
        break
      }
      if byte == UInt8(ascii: "&") {
        guard let semicolon = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
          throw HeaderError("XML plist: bad entity at byte \(position)")
        }
        let entity = String(decoding: bytes[(position + 1)..<semicolon], as: UTF8.self)
        switch entity {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        default:
          var code: UInt32?
          if entity.hasPrefix("#x") {
            code = UInt32(entity.dropFirst(2), radix: 16)
          } else if entity.hasPrefix("#") {
            code = UInt32(entity.dropFirst())
          }
          guard let code, let scalar = Unicode.Scalar(code) else {
            throw HeaderError("XML plist: unknown entity &\(entity);")
          }
          out += Array(String(Character(scalar)).utf8)
        }
        position = semicolon + 1
        continue
      }
      out.append(byte)
      position += 1
    }
    return String(decoding: out, as: UTF8.self)
  }

  private mutating func value(depth: Int) throws -> PlistValue {
    skipMisc()
    let tag = try readTag()
    return try value(startingWith: tag, depth: depth)
  }

  private mutating func closeTag(_ name: String) throws {
    skipMisc()
    let tag = try readTag()
    guard tag.closing, tag.name == name else {
      throw HeaderError("XML plist: expected </\(name)>, found <\(tag.closing ? "/" : "")\(tag.name)>")
    }
  }

  private mutating func value(startingWith tag: Tag, depth: Int) throws -> PlistValue {
    guard depth < PropertyList.depthLimit else { throw HeaderError("XML plist nested too deeply") }
    values += 1
    guard values <= PropertyList.valueLimit else { throw HeaderError("XML plist has too many values") }
    guard !tag.closing else { throw HeaderError("XML plist: unexpected </\(tag.name)>") }
    func content() throws -> String {
      if tag.selfClosing { return "" }
      let text = try self.text()
      try closeTag(tag.name)
      return text
    }
    switch tag.name {
    case "true": if !tag.selfClosing { try closeTag("true") }; return .boolean(true)
    case "false": if !tag.selfClosing { try closeTag("false") }; return .boolean(false)
    case "string": return .string(try content())
    case "integer":
      let text = try content().trimmingWhitespace()
      if let value = Int64(text) { return .integer(value) }
      // Beyond Int64.max, as the binary format's 128-bit integers: the low 64 bits are kept.
      if let value = UInt64(text) { return .integer(Int64(bitPattern: value)) }
      if text.lowercased().hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) {
        return .integer(Int64(bitPattern: value))
      }
      throw HeaderError("XML plist: bad integer \"\(text.prefix(40))\"")
    case "real":
      let text = try content().trimmingWhitespace()
      guard let value = Double(text) else { throw HeaderError("XML plist: bad real \"\(text.prefix(40))\"") }
      return .real(value)
    case "date": return .dateText(try content().trimmingWhitespace())
    case "data":
      let text = try content().filter { !$0.isWhitespace }
      guard let data = Base64.decode(text) else { throw HeaderError("XML plist: bad base64 data") }
      return .data(data)
    case "array":
      if tag.selfClosing { return .array([]) }
      var items: [PlistValue] = []
      while true {
        skipMisc()
        let next = try readTag()
        if next.closing {
          guard next.name == "array" else {
            throw HeaderError("XML plist: expected </array>, found </\(next.name)>")
          }
          return .array(items)
        }
        items.append(try value(startingWith: next, depth: depth + 1))
      }
    case "dict":
      if tag.selfClosing { return .dictionary([]) }
      var pairs: [(String, PlistValue)] = []
      while true {
        skipMisc()
        let next = try readTag()
        if next.closing {
          guard next.name == "dict" else {
            throw HeaderError("XML plist: expected </dict>, found </\(next.name)>")
          }
          return .dictionary(pairs)
        }
        guard next.name == "key" else { throw HeaderError("XML plist: expected <key>, found <\(next.name)>") }
        let key = next.selfClosing ? "" : try text()
        if !next.selfClosing { try closeTag("key") }
        pairs.append((key, try value(depth: depth + 1)))
      }
    default:
      throw HeaderError("XML plist: unknown element <\(tag.name)>")
    }
  }
}

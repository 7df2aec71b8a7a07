/// The few XMP properties shelf falls back on when a file's EXIF lacks the tag, read from an
/// XMP packet (RDF/XML) as exiftool names them: `exif:DateTimeOriginal`,
/// `photoshop:DateCreated`, `xmp:CreateDate`, `tiff:Orientation`, `tiff:Make`, `tiff:Model`,
/// `tiff:Software` and `exifEX:LensModel`, each as an attribute of an `rdf:Description` or as an
/// element of its own. Prefixes are resolved through the packet's `xmlns:` declarations, so a
/// writer's own prefix for a namespace is honoured.
///
/// The packet is scanned once, front to back, with no nesting kept: its cost is linear in its
/// size, which the callers cap (`XMPPacket.sizeLimit`).
package struct XMPPacket: Equatable {
  var dateTimeOriginal: String?
  var dateCreated: String?
  var createDate: String?
  var orientation: Int?
  var make: String?
  var model: String?
  var software: String?
  var lensModel: String?

  /// The largest packet read; Photoshop's document histories make some a few MiB.
  static let sizeLimit = 8 << 20

  /// The namespaces of the properties read, by the URI that identifies them.
  private static let exif = "http://ns.adobe.com/exif/1.0/"
  private static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
  private static let xmp = "http://ns.adobe.com/xap/1.0/"
  private static let tiff = "http://ns.adobe.com/tiff/1.0/"
  private static let exifEX = "http://cipa.jp/exif/1.0/"
  private static let localNames: Set<String> = [
    "DateTimeOriginal", "DateCreated", "CreateDate", "Orientation", "Make", "Model", "Software", "LensModel",
  ]

  /// Reads the properties of `packet`; a packet that is not XML gives none.
  package init(_ packet: [UInt8]) {
    var found: [String: String] = [:]
    var namespaces: [String: String] = [:]
    Self.scan(packet.prefix(Self.sizeLimit)) { name, value in
      if name.hasPrefix("xmlns:") {
        namespaces[String(name.dropFirst(6))] = value
      } else if let colon = name.firstIndex(of: ":"),
        Self.localNames.contains(String(name[name.index(after: colon)...])),
        found[name] == nil
      {
        found[name] = value
      }
    }
    func property(_ namespace: String, _ local: String) -> String? {
      for (prefix, uri) in namespaces.sorted(by: { $0.key < $1.key }) where uri == namespace {
        if let value = found[prefix + ":" + local] { return value }
      }
      return nil
    }
    dateTimeOriginal = property(Self.exif, "DateTimeOriginal")
    dateCreated = property(Self.photoshop, "DateCreated")
    createDate = property(Self.xmp, "CreateDate")
    orientation = property(Self.tiff, "Orientation").flatMap { Int($0) }
    make = property(Self.tiff, "Make")
    model = property(Self.tiff, "Model")
    software = property(Self.tiff, "Software")
    lensModel = property(Self.exifEX, "LensModel")
  }

  /// Calls `visit` with every attribute (name, value) of every start tag, and with every
  /// element's name and text when the text is not blank and comes before any other tag.
  /// Values have the five predefined entities and numeric references decoded, spaces trimmed.
  private static func scan(_ bytes: ArraySlice<UInt8>, _ visit: (String, String) -> Void) {
    let text = Array(bytes)
    var at = 0
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    func isNameByte(_ byte: UInt8) -> Bool {
      !isSpace(byte) && byte != UInt8(ascii: "=") && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/")
        && byte != UInt8(ascii: "<") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'")
    }
    func name() -> String {
      let start = at
      while at < text.count, isNameByte(text[at]) { at += 1 }
      return String(decoding: text[start..<at], as: UTF8.self)
    }
    while at < text.count {
      guard text[at] == UInt8(ascii: "<") else {
        at += 1
        continue
      }
      at += 1
      // Comments, declarations, processing instructions and end tags carry no properties.
      guard at < text.count, text[at] != UInt8(ascii: "!"), text[at] != UInt8(ascii: "?"),
        text[at] != UInt8(ascii: "/")
      else { continue }
      let element = name()
      var selfClosed = false
      while at < text.count {
        while at < text.count, isSpace(text[at]) { at += 1 }
        guard at < text.count else { break }
        if text[at] == UInt8(ascii: ">") {
          at += 1
          break
        }
        if text[at] == UInt8(ascii: "/") {
          selfClosed = true
          at += 1
          continue
        }
        if text[at] == UInt8(ascii: "<") { break }
        let attribute = name()
        while at < text.count, isSpace(text[at]) { at += 1 }
        guard at < text.count, text[at] == UInt8(ascii: "=") else {
          if attribute.isEmpty { at = min(at + 1, text.count) }
          continue
        }
        at += 1
        while at < text.count, isSpace(text[at]) { at += 1 }
        guard at < text.count, text[at] == UInt8(ascii: "\"") || text[at] == UInt8(ascii: "'") else {
          continue
        }
        let quote = text[at]
        at += 1
        let start = at
        while at < text.count, text[at] != quote { at += 1 }
        let value = text[start..<at]
        // Past the closing quote; an unclosed one ends the packet.
        at = min(at + 1, text.count)
        if !attribute.isEmpty, let decoded = decode(value) { visit(attribute, decoded) }
      }
      if !selfClosed, !element.isEmpty {
        let start = at
        while at < text.count, text[at] != UInt8(ascii: "<") { at += 1 }
        if let decoded = decode(text[start..<at]) { visit(element, decoded) }
      }
    }
  }

  /// XML character data as a string: entities decoded, spaces trimmed; nil when blank.
  private static func decode(_ raw: ArraySlice<UInt8>) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(raw.count)
    var index = raw.startIndex
    while index < raw.endIndex {
      let byte = raw[index]
      guard byte == UInt8(ascii: "&"), let end = raw[index...].prefix(12).firstIndex(of: UInt8(ascii: ";"))
      else {
        bytes.append(byte)
        index += 1
        continue
      }
      let entity = String(decoding: raw[(index + 1)..<end], as: UTF8.self)
      let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"][entity]
      var scalar: Unicode.Scalar?
      if entity.hasPrefix("#x") {
        scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
      } else if entity.hasPrefix("#") {
        scalar = UInt32(entity.dropFirst(1)).flatMap(Unicode.Scalar.init)
      }
      if let replacement = named ?? scalar.map({ String(Character($0)) }) {
        bytes += Array(replacement.utf8)
        index = end + 1
      } else {
        bytes.append(byte)
        index += 1
      }
    }
    var value = Substring(String(decoding: bytes, as: UTF8.self))
    while let first = value.first, first.isWhitespace { value = value.dropFirst() }
    while let last = value.last, last.isWhitespace { value = value.dropLast() }
    return value.isEmpty ? nil : String(value)
  }
}

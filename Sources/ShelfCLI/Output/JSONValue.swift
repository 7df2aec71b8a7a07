import ShelfCore

/// A JSON value with ordered object keys, so output is stable and reads in a sensible order.
package enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    lhs.serialized() == rhs.serialized()
  }

  /// `path` as a string, plus `path_b64` with the exact bytes when the name is not plain
  /// UTF-8 (the `path` string then has invalid bytes replaced).
  package static func pathFields(_ path: RawPath, key: String = "path") -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [(key, .string(String(decoding: path.bytes, as: UTF8.self)))]
    if path.utf8String == nil { fields.append((key + "_b64", .string(path.base64))) }
    return fields
  }

  /// The value as JSON text; `pretty` indents by two spaces.
  package func serialized(pretty: Bool = false) -> String {
    var out = ""
    write(to: &out, pretty: pretty, indent: 0)
    return out
  }

  private func write(to out: inout String, pretty: Bool, indent: Int) {
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .int(let value): out += String(value)
    case .double(let value):
      if value.isFinite {
        out += value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
      } else {
        out += "null"
      }
    case .string(let value): Self.writeString(value, to: &out)
    case .array(let items):
      if items.isEmpty { out += "[]"; return }
      out += "["
      for (index, item) in items.enumerated() {
        if index > 0 { out += "," }
        if pretty { out += "\n" + String(repeating: " ", count: indent + 2) }
        item.write(to: &out, pretty: pretty, indent: indent + 2)
      }
      if pretty { out += "\n" + String(repeating: " ", count: indent) }
      out += "]"
    case .object(let fields):
      if fields.isEmpty { out += "{}"; return }
      out += "{"
      for (index, (key, value)) in fields.enumerated() {
        if index > 0 { out += "," }
        if pretty { out += "\n" + String(repeating: " ", count: indent + 2) }
        Self.writeString(key, to: &out)
        out += pretty ? ": " : ":"
        value.write(to: &out, pretty: pretty, indent: indent + 2)
      }
      if pretty { out += "\n" + String(repeating: " ", count: indent) }
      out += "}"
    }
  }

  private static func writeString(_ string: String, to out: inout String) {
    out += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}

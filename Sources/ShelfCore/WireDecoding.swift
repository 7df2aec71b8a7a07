// The decoding half of `WireFormat`: nodes read by `WireReader` turned back into values.

/// Reads a primitive of type `T` from a node.
func wireValue<T>(_ node: WireNode, as type: T.Type, codingPath: [any CodingKey]) throws -> T {
  func mismatch() -> DecodingError {
    .typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "not a \(T.self)"))
  }
  func integer<I: FixedWidthInteger>(_ kind: I.Type) throws -> I {
    switch node {
    case .int(let value): if let exact = I(exactly: value) { return exact }
    case .uint(let value): if let exact = I(exactly: value) { return exact }
    default: break
    }
    throw mismatch()
  }
  if T.self == String.self {
    guard case .string(let string) = node else { throw mismatch() }
    return unsafeBitCast(string, to: T.self)
  }
  if T.self == Int.self { return unsafeBitCast(try integer(Int.self), to: T.self) }
  let value: Any
  switch T.self {
  case is Bool.Type:
    guard case .bool(let bool) = node else { throw mismatch() }
    value = bool
  case is String.Type:
    guard case .string(let string) = node else { throw mismatch() }
    value = string
  case is Double.Type:
    guard case .double(let double) = node else { throw mismatch() }
    value = double
  case is Float.Type:
    guard case .double(let double) = node else { throw mismatch() }
    value = Float(double)
  case is Int.Type: value = try integer(Int.self)
  case is Int8.Type: value = try integer(Int8.self)
  case is Int16.Type: value = try integer(Int16.self)
  case is Int32.Type: value = try integer(Int32.self)
  case is Int64.Type: value = try integer(Int64.self)
  case is UInt.Type: value = try integer(UInt.self)
  case is UInt8.Type: value = try integer(UInt8.self)
  case is UInt16.Type: value = try integer(UInt16.self)
  case is UInt32.Type: value = try integer(UInt32.self)
  case is UInt64.Type: value = try integer(UInt64.self)
  default: throw mismatch()
  }
  guard let typed = value as? T else { throw mismatch() }
  return typed
}

/// Whether `T` is read by `wireValue`.
func isWirePrimitive<T>(_ type: T.Type) -> Bool {
  T.self == String.self || T.self == Int.self || T.self == Bool.self || T.self == Double.self
    || T.self == Int64.self || T.self == UInt64.self || T.self == Float.self || T.self == Int8.self
    || T.self == Int16.self || T.self == Int32.self || T.self == UInt.self || T.self == UInt8.self
    || T.self == UInt16.self || T.self == UInt32.self
}

/// Decodes a value of type `T` from a node (a primitive directly, anything else through its
/// `init(from:)`).
func wireDecode<T: Decodable>(_ node: WireNode, as type: T.Type, codingPath: [any CodingKey]) throws -> T {
  if T.self == [UInt8].self, case .bytes(let bytes) = node { return unsafeBitCast(bytes, to: T.self) }
  if isWirePrimitive(T.self) { return try wireValue(node, as: T.self, codingPath: codingPath) }
  return try T(from: WireDecoder(node: node, codingPath: codingPath))
}

struct WireDecoder: Decoder {
  let node: WireNode
  var codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .keyed(let pairs) = node else {
      throw DecodingError.typeMismatch(
        [String: Any].self, .init(codingPath: codingPath, debugDescription: "not keyed"))
    }
    return KeyedDecodingContainer(WireKeyedDecoder<Key>(pairs: pairs, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let values) = node else {
      throw DecodingError.typeMismatch(
        [Any].self, .init(codingPath: codingPath, debugDescription: "not a list"))
    }
    return WireUnkeyedDecoder(values: values, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    WireSingleDecoder(node: node, codingPath: codingPath)
  }
}

struct WireKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let pairs: [(String, WireNode)]
  var codingPath: [any CodingKey]
  var allKeys: [Key] { pairs.compactMap { Key(stringValue: $0.0) } }

  func contains(_ key: Key) -> Bool { pairs.contains { $0.0 == key.stringValue } }
  func child(_ key: Key) throws -> WireNode {
    let name = key.stringValue
    guard let node = pairs.first(where: { $0.0 == name })?.1 else {
      throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
    }
    return node
  }
  func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try child(key) { return true }
    return false
  }
  /// The node of an optional's key: nil when absent or null (one search of the entries, where
  /// the protocol's default asks three times).
  private func present(_ key: Key) -> WireNode? {
    let name = key.stringValue
    guard let node = pairs.first(where: { $0.0 == name })?.1 else { return nil }
    if case .null = node { return nil }
    return node
  }
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try present(key).map { try wireDecode($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try present(key).map { try wireValue($0, as: type, codingPath: codingPath) }
  }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try wireDecode(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try wireValue(try child(key), as: type, codingPath: codingPath)
  }
  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try WireDecoder(node: try child(key), codingPath: codingPath).container(keyedBy: type)
  }
  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try WireDecoder(node: try child(key), codingPath: codingPath).unkeyedContainer()
  }
  func superDecoder() throws -> any Decoder { try superDecoder(forKey: Key(stringValue: "super")!) }
  func superDecoder(forKey key: Key) throws -> any Decoder {
    WireDecoder(node: try child(key), codingPath: codingPath)
  }
}

struct WireUnkeyedDecoder: UnkeyedDecodingContainer {
  let values: [WireNode]
  var codingPath: [any CodingKey]
  var currentIndex = 0
  var count: Int? { values.count }
  var isAtEnd: Bool { currentIndex >= values.count }

  mutating func next() throws -> WireNode {
    guard currentIndex < values.count else {
      throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "at end"))
    }
    defer { currentIndex += 1 }
    return values[currentIndex]
  }
  mutating func decodeNil() throws -> Bool {
    guard currentIndex < values.count, case .null = values[currentIndex] else { return false }
    currentIndex += 1
    return true
  }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try wireDecode(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Bool.Type) throws -> Bool {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: String.Type) throws -> String {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Double.Type) throws -> Double {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Float.Type) throws -> Float {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Int.Type) throws -> Int {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Int8.Type) throws -> Int8 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Int16.Type) throws -> Int16 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Int32.Type) throws -> Int32 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: Int64.Type) throws -> Int64 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: UInt.Type) throws -> UInt {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
    try wireValue(try next(), as: type, codingPath: codingPath)
  }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try WireDecoder(node: try next(), codingPath: codingPath).container(keyedBy: type)
  }
  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try WireDecoder(node: try next(), codingPath: codingPath).unkeyedContainer()
  }
  mutating func superDecoder() throws -> any Decoder { WireDecoder(node: try next(), codingPath: codingPath) }
}

struct WireSingleDecoder: SingleValueDecodingContainer {
  let node: WireNode
  var codingPath: [any CodingKey]

  func decodeNil() -> Bool {
    if case .null = node { return true }
    return false
  }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try wireDecode(node, as: type, codingPath: codingPath)
  }
  func decode(_ type: Bool.Type) throws -> Bool { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: String.Type) throws -> String { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Double.Type) throws -> Double { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Float.Type) throws -> Float { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Int.Type) throws -> Int { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Int8.Type) throws -> Int8 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Int16.Type) throws -> Int16 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Int32.Type) throws -> Int32 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: Int64.Type) throws -> Int64 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: UInt.Type) throws -> UInt { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try wireValue(node, as: type, codingPath: codingPath) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try wireValue(node, as: type, codingPath: codingPath) }
}

import ShelfBackup

/// Backup keybags (`Keybag`'s TLV parser; unlocking is left out, it is PBKDF2 by design).
enum KeybagTarget: FuzzTarget {
  static let name = "keybag"
  static func run(_ input: [UInt8]) {
    _ = try? Keybag(input)
  }
}

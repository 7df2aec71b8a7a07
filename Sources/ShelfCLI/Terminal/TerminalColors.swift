import ShelfCore

/// The colours a terminal draws, as escape sequences for one RGB colour: 24-bit where the
/// terminal announces it, else the nearest of xterm's 256 or of the 16 ANSI colours, which
/// every colour terminal has (a 24-bit code on a terminal without it shows wrong colours or
/// none).
enum TerminalColors: Equatable {
  case trueColor
  case palette256
  case palette16

  /// What the terminal announces: `COLORTERM=truecolor` or `24bit` (the convention terminals
  /// follow), else the `colors` capability of `TERM`'s terminfo entry (16777216 for the
  /// `-direct` entries, 256, 16 or 8), else `TERM`'s name (`*-direct`, `*256color*`); 16
  /// colours when nothing says more.
  static func announced(_ environment: [String: String]) -> TerminalColors {
    let announcement = environment["COLORTERM", default: ""].lowercased()
    if announcement == "truecolor" || announcement == "24bit" { return .trueColor }
    let name = environment["TERM", default: ""]
    if let colors = Terminfo.maxColors(terminal: name, environment: environment) {
      return colors >= 1 << 24 ? .trueColor : colors >= 256 ? .palette256 : .palette16
    }
    if name.hasSuffix("-direct") { return .trueColor }
    return name.contains("256color") ? .palette256 : .palette16
  }

  /// The SGR sequence that sets the foreground (`background` false) or background colour.
  func sequence(_ red: Int, _ green: Int, _ blue: Int, background: Bool) -> String {
    switch self {
    case .trueColor:
      return "\u{1B}[\(background ? 48 : 38);2;\(red);\(green);\(blue)m"
    case .palette256:
      return "\u{1B}[\(background ? 48 : 38);5;\(Self.nearest256(red, green, blue))m"
    case .palette16:
      let index = Self.nearest16(red, green, blue)
      let base = background ? (index < 8 ? 40 : 100) : (index < 8 ? 30 : 90)
      return "\u{1B}[\(base + index % 8)m"
    }
  }

  /// xterm's 16 colours as its default palette draws them (black, red, …, white, then bright).
  static let ansi16: [(Int, Int, Int)] = [
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
    (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
    (255, 0, 255), (0, 255, 255), (255, 255, 255),
  ]

  /// The levels of each axis of xterm's 6×6×6 colour cube (indices 16–231).
  static let cubeLevels = [0, 95, 135, 175, 215, 255]

  /// The index (0–15) of the ANSI colour nearest to the colour, by squared distance.
  static func nearest16(_ red: Int, _ green: Int, _ blue: Int) -> Int {
    ansi16.indices.min { distance(ansi16[$0], (red, green, blue)) < distance(ansi16[$1], (red, green, blue)) }
      ?? 0
  }

  /// The index (16–255) of the nearest colour of xterm's cube or grey ramp (232–255: 8, 18, …
  /// 238); the first 16, which terminals redefine, are left out.
  static func nearest256(_ red: Int, _ green: Int, _ blue: Int) -> Int {
    func level(_ value: Int) -> Int {
      cubeLevels.indices.min { abs(cubeLevels[$0] - value) < abs(cubeLevels[$1] - value) } ?? 0
    }
    let (r, g, b) = (level(red), level(green), level(blue))
    let cube = (cubeLevels[r], cubeLevels[g], cubeLevels[b])
    let average = (red + green + blue) / 3
    let step = min(23, max(0, (average - 3) / 10))
    let grey = 8 + 10 * step
    let colour = (red, green, blue)
    if distance((grey, grey, grey), colour) < distance(cube, colour) { return 232 + step }
    return 16 + 36 * r + 6 * g + b
  }

  private static func distance(_ left: (Int, Int, Int), _ right: (Int, Int, Int)) -> Int {
    let (dr, dg, db) = (left.0 - right.0, left.1 - right.1, left.2 - right.2)
    return dr * dr + dg * dg + db * db
  }
}

/// The one fact shelf reads from the terminfo database: how many colours a terminal has.
enum Terminfo {
  /// The `colors` number of the compiled entry for `terminal`, looked up as ncurses does
  /// (`$TERMINFO`, `~/.terminfo`, `$TERMINFO_DIRS`, /etc/terminfo, /lib/terminfo,
  /// /usr/share/terminfo); nil when there is no entry or it does not say. A damaged entry is
  /// treated as missing.
  static func maxColors(terminal: String, environment: [String: String]) -> Int? {
    guard let first = terminal.first, !terminal.contains("/"), terminal != "." && terminal != ".." else {
      return nil
    }
    var folders: [String] = []
    if let folder = environment["TERMINFO"], !folder.isEmpty { folders.append(folder) }
    if let home = environment["HOME"], !home.isEmpty { folders.append(home + "/.terminfo") }
    for folder in environment["TERMINFO_DIRS", default: ""].split(separator: ":") {
      folders.append(String(folder))
    }
    folders += ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"]
    let hex = String(first.asciiValue ?? 0, radix: 16)
    for folder in folders {
      for letter in [String(first), hex] {
        guard let file = try? RegularFile(path: RawPath(folder + "/" + letter + "/" + terminal)),
          file.status.size <= 1 << 16,
          let bytes = try? file.read(count: Int(file.status.size), at: 0)
        else { continue }
        return colors(inEntry: bytes)
      }
    }
    return nil
  }

  /// The `colors` number (the 14th) of a compiled terminfo entry: the legacy format (16-bit
  /// numbers, magic 0432) or ncurses 6's (32-bit numbers, magic 01036); nil when absent
  /// (-1), cancelled (-2) or the bytes do not hold it.
  static func colors(inEntry bytes: [UInt8]) -> Int? {
    func short(_ offset: Int) -> Int? {
      guard offset >= 0, offset + 1 < bytes.count else { return nil }
      return Int(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8))
    }
    guard let magic = short(0), magic == 0o432 || magic == 0o1036,
      let namesSize = short(2), let booleans = short(4), let numbers = short(6),
      namesSize >= 0, booleans >= 0, numbers > 13
    else { return nil }
    let width = magic == 0o1036 ? 4 : 2
    var offset = 12 + namesSize + booleans
    if offset % 2 == 1 { offset += 1 }
    offset += 13 * width
    guard offset + width <= bytes.count else { return nil }
    let value: Int
    if width == 2 {
      value = short(offset) ?? -1
    } else {
      let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
      value = Int(Int32(bitPattern: raw))
    }
    return value > 0 ? value : nil
  }
}

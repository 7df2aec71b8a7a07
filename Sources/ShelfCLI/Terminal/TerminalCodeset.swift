/// The codeset the terminal expects, from the locale variables.
enum TerminalCodeset {
  /// The codeset named by `LC_ALL`, `LC_CTYPE` or `LANG` (the first set) when it is not UTF-8;
  /// nil for UTF-8 and for the C/POSIX locale, which a modern terminal shows as UTF-8.
  static func nonUTF8(_ environment: [String: String]) -> String? {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first {
      !$0.isEmpty
    }
    guard let locale, let dot = locale.firstIndex(of: ".") else { return nil }
    let codeset = locale[locale.index(after: dot)...].prefix { $0 != "@" }
    let normalized = codeset.lowercased().filter { $0 != "-" && $0 != "_" }
    return normalized == "utf8" || normalized.isEmpty ? nil : String(codeset)
  }
}

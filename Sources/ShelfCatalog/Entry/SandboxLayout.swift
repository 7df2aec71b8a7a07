import ShelfCore

/// Recognises an application sandbox (an `X.app` bundle beside `Documents/`, `Library/` and
/// `tmp/`) and names the area each file lies in.
public struct SandboxLayout: Sendable, Equatable {
  /// True when the root looks like an application sandbox.
  public var isSandbox: Bool
  /// The bundle folder's name (e.g. `Demo.app`), when there is one.
  public var bundleName: [UInt8]?

  /// Looks at the top level of `root`.
  public static func detect(root: RawPath) -> SandboxLayout {
    guard let entries = try? TreeWalker.list(root) else {
      return SandboxLayout(isSandbox: false, bundleName: nil)
    }
    var bundle: [UInt8]?
    var markers = 0
    for entry in entries {
      let isDirectory =
        entry.type == 4 /* DT_DIR */
        || (entry.type == 0
          && (try? FileStatus.lstat(root.appending(RawPath(bytes: entry.name))))?.type == .directory)
      guard isDirectory else { continue }
      if entry.name.count > 4 && entry.name.suffix(4).elementsEqual(Array(".app".utf8)) {
        if bundle == nil,
          (try? FileStatus.lstat(root.appending(RawPath(bytes: entry.name)).appending("Info.plist"))) != nil
        {
          bundle = entry.name
        }
      } else if ["Documents", "Library", "tmp"].contains(where: { Array($0.utf8) == entry.name }) {
        markers += 1
      }
    }
    let isSandbox = (bundle != nil && markers >= 1) || markers >= 2
    return SandboxLayout(isSandbox: isSandbox, bundleName: isSandbox ? bundle : nil)
  }

  /// The area of a file at `relative` (path from the root).
  public func area(of relative: [UInt8]) -> CatalogArea {
    guard isSandbox else { return .other }
    let parts = relative.split(separator: UInt8(ascii: "/"), maxSplits: 2, omittingEmptySubsequences: true)
    guard parts.count >= 2, let first = parts.first else { return .other }
    if let bundleName, first.elementsEqual(bundleName) { return .bundle }
    if first.count > 4 && first.suffix(4).elementsEqual(Array(".app".utf8)) { return .bundle }
    switch String(decoding: first, as: UTF8.self) {
    case "Documents": return .documents
    case "tmp": return .tmp
    case "Library":
      if parts.count >= 3 {
        switch String(decoding: parts[1], as: UTF8.self) {
        case "Preferences": return .preferences
        case "Caches": return .caches
        default: break
        }
      }
      return .library
    default: return .other
    }
  }

  /// Reads the bundle's `Info.plist` (binary or XML): identifier, name and version.
  public func bundleInfo(root: RawPath) -> BundleInfo? {
    guard let bundleName else { return nil }
    let bundlePath = RawPath(bytes: bundleName)
    let plistPath = root.appending(bundlePath).appending("Info.plist")
    guard let file = try? RegularFile(path: plistPath, followLinks: false),
      let plist = try? PropertyList.parse(file)
    else {
      return BundleInfo(identifier: nil, name: nil, version: nil, bundlePath: bundlePath)
    }
    let root = plist.root
    return BundleInfo(
      identifier: root["CFBundleIdentifier"]?.stringValue,
      name: root["CFBundleDisplayName"]?.stringValue ?? root["CFBundleName"]?.stringValue,
      version: root["CFBundleShortVersionString"]?.stringValue ?? root["CFBundleVersion"]?.stringValue,
      bundlePath: bundlePath)
  }
}

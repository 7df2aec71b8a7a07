import ShelfAudio
public import ShelfCore

/// The files of one kind under a folder named as an operand (`play` and `gain`'s audio,
/// `crush -r`'s PNGs), found by their extension through the one tree walker, in name order
/// folder by folder, with the folders that could not be read.
public struct FolderContents: Sendable, Equatable {
  /// The folder, spelled as given.
  public var folder: RawPath
  /// The files found, relative to `folder` (what `crush -o` keeps below its output folder).
  public var names: [RawPath] = []
  /// Folders below `folder` that could not be read or searched, and why: nothing below them
  /// was found.
  public var unreadable: [WalkProblem] = []

  /// The files found, each spelled from `folder` as given.
  public var paths: [RawPath] { names.map { folder.appending($0) } }

  /// The audio files (by extension) under `folder`, as a player finds them: hidden entries are
  /// skipped, links are followed only where they stay inside the folder and never twice into
  /// the same folder, and FIFOs are never opened. Throws when `folder` is not a folder.
  public static func audio(in folder: RawPath) throws(FileError) -> FolderContents {
    try FolderContents(
      folder, walker: TreeWalker(root: folder, followLinks: true, includeHidden: false),
      extensions: AudioContainer.audioExtensions)
  }

  /// The PNG files (by extension) under `folder`, hidden ones included, links not followed.
  /// Throws when `folder` is not a folder.
  public static func png(in folder: RawPath) throws(FileError) -> FolderContents {
    try FolderContents(folder, walker: TreeWalker(root: folder), extensions: ["png"])
  }

  private init(_ folder: RawPath, walker: TreeWalker, extensions: Set<String>) {
    self.folder = folder
    var names: [RawPath] = []
    let summary = walker.walk { file in
      let relative = RawPath(bytes: file.relative)
      guard extensions.contains(relative.lowercasedExtension) else { return }
      names.append(relative)
    }
    self.names = names
    unreadable = summary.unreadable
  }
}

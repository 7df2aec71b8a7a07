public import ShelfCore
public import ShelfFacts

/// The facts of a file with the status it had when it was opened for them: the status a
/// catalogue entry records, so that a change made while the file was read shows up as a
/// difference at the next scan. The facts read through (`read.kind`, `read.image?.width`).
@dynamicMemberLookup
public struct ReadFacts: Sendable {
  public var status: FileStatus
  public var facts: FileFacts

  /// Facts read from a file whose status, when it was opened, was `status`.
  public init(status: FileStatus, facts: FileFacts) {
    self.status = status
    self.facts = facts
  }

  /// The facts of an open file, read in one of `extractors`' sandboxed workers (or in this
  /// process when there are none); see `MetadataExtractor.extract(_:fileExtension:in:)`.
  public init(_ file: RegularFile, fileExtension: String, in extractors: ExtractorPool? = nil) throws {
    status = file.status
    facts = try MetadataExtractor.extract(file, fileExtension: fileExtension, in: extractors)
  }

  /// One of the facts, e.g. `read.kind`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<FileFacts, Value>) -> Value {
    facts[keyPath: keyPath]
  }
}

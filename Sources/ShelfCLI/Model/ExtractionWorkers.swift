import ShelfWorkers

extension Invocation {
  /// The sandboxed workers a command reads files with (see `ExtractorPool.forCommand`). Under
  /// an address-space limit below what they need, it says so once, with the limit shelf
  /// needs, before any file is read.
  func extractionWorkers(fileTimeout: Int? = nil) -> ExtractorPool? {
    let pool = ExtractorPool.forCommand(environment: environment, fileTimeout: fileTimeout)
    if let shortfall = AddressSpaceShortfall.current { console.warning(shortfall.description) }
    return pool
  }
}

import ShelfCore
import Testing

@testable import ShelfCatalog

/// Takes every job with `workers` workers taking in turn; returns each worker's jobs.
private func takeAll(_ outputs: [String], workers: Int) -> [[Int]] {
  var queue = ExtractQueue(outputs: outputs.map { RawPath($0) })
  var folders = [Int?](repeating: nil, count: workers)
  var jobs = [[Int]](repeating: [], count: workers)
  var taking = true
  while taking {
    taking = false
    for worker in 0..<workers {
      guard let next = queue.take(after: folders[worker]) else { continue }
      folders[worker] = next.folder
      jobs[worker].append(next.job)
      taking = true
    }
  }
  return jobs
}

@Test func extractWorkersWriteIntoDifferentFolders() {
  let jobs = takeAll(["out/a/1", "out/a/2", "out/a/3", "out/b/1", "out/b/2", "out/c/1"], workers: 2)
  // The second worker starts in folder b, not beside the first in a.
  #expect(jobs == [[0, 1, 2], [3, 4, 5]])
}

@Test func extractQueueHandsOutEveryJobOnceWhenFoldersRunOut() {
  let outputs = ["out/x/1", "out/x/2", "out/x/3", "out/y/1"]
  let jobs = takeAll(outputs, workers: 3)
  // The third worker finds no free folder and shares one; no job is lost or repeated.
  #expect(jobs.flatMap { $0 }.sorted() == Array(0..<outputs.count))
  #expect(jobs == [[0, 2], [3], [1]])
}

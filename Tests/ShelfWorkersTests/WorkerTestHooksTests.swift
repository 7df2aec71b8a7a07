import ShelfCore
import Testing

@testable import ShelfWorkers

/// A worker's test hooks are read once into one value: the fault asked for, on the file of that
/// name only, and nothing for a fault the worker does not know.
@Suite struct WorkerTestHooksTests {
  @Test func theFaultAskedForIsMadeOnTheFileOfThatNameOnly() {
    let environment = [
      "SHELF_WORKER_FAULT": "syscall:open-write", "SHELF_WORKER_FAULT_FILE": "bad.jpg",
      "SHELF_WORKER_FAULT_PID": "4242", "SHELF_WORKER_START_MARKER": "/tmp/marker",
    ]
    let hooks = WorkerTestHooks { environment[$0] }
    #expect(hooks.fault(for: RawPath("/photos/bad.jpg")) == .openWrite)
    #expect(hooks.fault(for: RawPath("/photos/good.jpg")) == nil)
    #expect(hooks.fault(for: RawPath("/photos/bad.jpg/inner")) == nil)
    #expect(hooks.faultPID == 4242)
    #expect(hooks.startMarker == "/tmp/marker")
  }

  @Test func anUnknownFaultOrNoFileAsksForNothing() {
    for environment in [
      ["SHELF_WORKER_FAULT": "explode", "SHELF_WORKER_FAULT_FILE": "bad.jpg"],
      ["SHELF_WORKER_FAULT": "crash"],
      [:],
    ] {
      let hooks = WorkerTestHooks { environment[$0] }
      #expect(hooks.fault(for: RawPath("/photos/bad.jpg")) == nil)
      #expect(hooks.faultPID == nil && hooks.startMarker == nil)
    }
  }

  @Test func workersKeepTheHooksVariablesInTestBuilds() {
    #expect(WorkerTestHooks.environmentPrefixes == ["SHELF_WORKER_"])
    #expect(WorkerProcess.keptEnvironment.contains("SHELF_WORKER_"))
    #expect(!WorkerProcess.keptEnvironment.contains { "SHELF_BACKUP_PASSWORD=x".hasPrefix($0) })
  }
}

public import ShelfCore
import Synchronization

/// A PNG file to crush, and the relative name its output takes inside an output folder.
public struct PNGCrushInput: Sendable, Equatable {
  /// The file to read.
  public var path: RawPath
  /// Where the output goes below an output folder: the file's own name for a file given
  /// directly, its path relative to the folder it was found in for a file found by a walk.
  public var outputName: RawPath

  /// An input whose output keeps the file's name (`outputName` defaults to its last component).
  public init(path: RawPath, outputName: RawPath? = nil) {
    self.path = path
    self.outputName = outputName ?? path.lastComponent
  }
}

/// Where crushed files go.
public enum PNGCrushDestination: Sendable, Equatable {
  /// Each file that can be made smaller is replaced; a symbolic link's target is replaced and
  /// the link kept. Files that cannot be made smaller are left as they are.
  case inPlace
  /// Every input gets an output under the folder (a plain copy when it cannot be made smaller).
  case folder(RawPath)
  /// Nothing is written: the crush only reports.
  case nowhere
}

/// How a `PNGFileCrusher` runs.
public struct PNGCrushSettings: Sendable {
  /// Where outputs go.
  public var destination: PNGCrushDestination
  /// Compute and report, write nothing (the outputs are still named, for reports).
  public var dryRun: Bool
  /// Give each output its input's permissions and modification time.
  public var preserve: Bool
  /// How each file is optimized.
  public var optimization: PNGOptimizationOptions
  /// How many files are crushed at once (each on a thread of its own); their trials may use
  /// as many threads again when few files remain.
  public var width: Int
  /// Passed to every `AtomicFileWriter` (tests stop a write before its rename through it).
  public var writerBeforeRename: (@Sendable (RawPath) -> Void)?
  /// Replace files that already exist in the output folder; without it such an input is
  /// refused and the file left as it was (in-place crushing replaces by definition).
  public var replaceExisting: Bool

  public init(
    destination: PNGCrushDestination, dryRun: Bool = false, preserve: Bool = false,
    optimization: PNGOptimizationOptions = PNGOptimizationOptions(), width: Int = 1,
    replaceExisting: Bool = false, writerBeforeRename: (@Sendable (RawPath) -> Void)? = nil
  ) {
    self.destination = destination
    self.dryRun = dryRun
    self.preserve = preserve
    self.replaceExisting = replaceExisting
    self.optimization = optimization
    self.width = max(1, width)
    self.writerBeforeRename = writerBeforeRename
  }
}

/// One file to crush and the file its result replaces or creates (nil: nothing is written).
public struct PNGCrushJob: Sendable, Equatable {
  /// The file read.
  public var input: RawPath
  /// The file written (for in-place, the input or its link's target); nil when the crush
  /// only reports.
  public var output: RawPath?

  public init(input: RawPath, output: RawPath?) {
    self.input = input
    self.output = output
  }
}

/// The jobs of a batch, and the inputs refused while planning (their output is another's).
public struct PNGCrushPlan: Sendable {
  /// The jobs to run, in the order of the inputs.
  public var jobs: [PNGCrushJob]
  /// Inputs given no job, with the reason (`.cannotCreate`).
  public var refused: [FileError]
}

/// What happened to one file.
public struct PNGCrushReport: Sendable {
  /// The job this reports on.
  public var job: PNGCrushJob
  /// The input's size in bytes (0 when it could not be read).
  public var sizeBefore = 0
  /// The size of what the output holds: the new encoding, or the input's size when kept.
  public var sizeAfter = 0
  /// Whether a new encoding was chosen (false: the input's bytes are kept).
  public var changed = false
  /// Whether a file was written.
  public var written = false
  /// The size of the smallest encoding found, when one was made: above `sizeBefore` when the
  /// best the optimizer could do would have grown the file, which was therefore kept.
  public var smallestEncoding: Int?
  /// What was chosen ("palette 4-bit, filter none"), or why nothing changed.
  public var summary = ""
  /// What the user should be told about the output (a lossy conversion, dropped chunks).
  public var notes: [PNGOptimizationNote] = []
  /// Why the file failed; the input is untouched and nothing was written.
  public var error: (any ShelfError)?

  public init(job: PNGCrushJob) { self.job = job }
}

/// Crushes PNG files: plans where each output goes, runs the optimizer on blocking threads of
/// bounded number, and writes each result atomically. The library side of `shelf crush`,
/// usable without the binary.
public struct PNGFileCrusher: Sendable {
  /// Where outputs go and how files are crushed.
  public var settings: PNGCrushSettings

  public init(settings: PNGCrushSettings) { self.settings = settings }

  /// Names every input's output. An input whose output another input already claimed (the
  /// same name from two folders) is refused, so that neither result overwrites the other, and
  /// so is one whose output already exists in the output folder, unless `replaceExisting`.
  public func plan(_ inputs: [PNGCrushInput]) -> PNGCrushPlan {
    var plan = PNGCrushPlan(jobs: [], refused: [])
    var claimed = Set<RawPath>()
    for input in inputs {
      let output: RawPath?
      switch settings.destination {
      case .inPlace: output = AtomicFileWriter.resolvedTarget(input.path)
      case .folder(let folder): output = folder.appending(input.outputName)
      case .nowhere: output = nil
      }
      if let output, !settings.dryRun, !claimed.insert(output).inserted {
        plan.refused.append(
          FileError(
            path: input.path, reason: "its output \(output.escaped) is also another input's output",
            failure: .cannotCreate))
        continue
      }
      if let output, let refusal = existingOutput(output) {
        plan.refused.append(refusal)
        continue
      }
      plan.jobs.append(PNGCrushJob(input: input.path, output: output))
    }
    return plan
  }

  /// Crushes every job, `settings.width` at a time, each on a thread of its own (biggest
  /// files first, so the last to finish are small). `started` is called as work on a file
  /// begins (a big file at the highest level takes seconds before it is done), `finished` as
  /// each file is done with its report and the count done so far. Returns the reports in the
  /// order of `jobs`.
  public func run(
    _ jobs: [PNGCrushJob], finished: @escaping @Sendable (PNGCrushReport, Int) -> Void = { _, _ in },
    started: @escaping @Sendable (PNGCrushJob) -> Void = { _ in }
  ) async -> [PNGCrushReport] {
    var optimization = settings.optimization
    // Trials of one file may use every worker too: when few files remain, their trials and
    // finalists spread over the idle cores.
    optimization.parallelTrials = settings.width
    let optimizer = PNGOptimizer(options: optimization)
    let order = jobs.indices.map { index in
      (index, (try? FileStatus.stat(jobs[index].input).size) ?? 0)
    }.sorted { $0.1 > $1.1 }.map(\.0)
    let reports = ReportCollector(count: jobs.count)
    let outputFolder = outputFolder()
    await withTaskGroup(of: Void.self) { group in
      var next = 0
      func add() {
        guard next < order.count else { return }
        let index = order[next]
        next += 1
        group.addTask {
          started(jobs[index])
          let report = await BlockingThread.run {
            crush(jobs[index], optimizer: optimizer, into: outputFolder)
          }
          finished(report, reports.store(report, at: index))
        }
      }
      for _ in 0..<min(settings.width, jobs.count) { add() }
      while await group.next() != nil { add() }
    }
    return reports.all()
  }

  /// Crushes one file: read, optimize (which verifies every pixel), write atomically.
  public func crush(_ job: PNGCrushJob) -> PNGCrushReport {
    crush(job, optimizer: PNGOptimizer(options: settings.optimization), into: outputFolder())
  }

  /// The output folder, opened by the first file written into it and shared by the batch: every
  /// output is reached from its descriptor (`ContainedDirectory`), so nothing is written
  /// outside it, whatever is renamed inside it meanwhile. Nil without one.
  private func outputFolder() -> LazyContainedDirectory? {
    guard case .folder(let folder) = settings.destination, !settings.dryRun else { return nil }
    return LazyContainedDirectory(folder)
  }

  /// Crushes one file, writing into `outputFolder` when there is one.
  private func crush(_ job: PNGCrushJob, optimizer: PNGOptimizer, into outputFolder: LazyContainedDirectory?)
    -> PNGCrushReport
  {
    var report = PNGCrushReport(job: job)
    do {
      let file = try RegularFile(path: job.input)
      let status = file.status
      let bytes = try file.readAll(limit: PNGDecoder.fileSizeLimit)
      report.sizeBefore = bytes.count
      let result: PNGOptimizationResult
      do {
        result = try optimizer.optimize(bytes: bytes)
      } catch {
        throw error.at(job.input)
      }
      report.sizeAfter = result.bytes.count
      report.changed = result.changed
      report.smallestEncoding = result.smallestEncoding
      report.summary = result.summary
      report.notes = result.notes
      guard !settings.dryRun, let output = job.output else { return report }
      // Checked again at the last moment: the file may have appeared while this one was crushed.
      if let refusal = existingOutput(output) { throw refusal }
      let inPlace = settings.destination == .inPlace
      if !result.changed {
        // Nothing smaller: a file replaced in place stays as it is, and so does an output
        // that is the input itself.
        if inPlace { return report }
        if let existing = try? FileStatus.stat(output), existing.inode == status.inode,
          existing.device == status.device
        {
          return report
        }
      }
      // In place, the file read must still be there right before the rename: one replaced or
      // changed meanwhile is the user's newer work, never overwritten with the old one's result.
      let options = AtomicFileWriter.Options(
        mode: inPlace || settings.preserve ? status.mode & 0o7777 : nil,
        modificationTime: settings.preserve ? status.mtimeNanoseconds : nil,
        beforeRename: settings.writerBeforeRename, replacing: inPlace ? status : nil,
        createsOnly: !inPlace && !settings.replaceExisting)
      let writer: AtomicFileWriter
      if let contained = try outputFolder?.open() {
        guard let relative = contained.relative(output) else {
          throw FileError(path: output, reason: "is outside the output folder", failure: .cannotCreate)
        }
        let folder: OpenFolder
        do {
          folder = try contained.folder(relative.parent)
        } catch let error as ContainmentError {
          throw FileError(path: output, reason: "unsafe path (\(error))", failure: .cannotCreate)
        }
        writer = try AtomicFileWriter(name: relative.lastComponent, in: folder, options: options)
      } else {
        writer = try AtomicFileWriter(target: output, options: options)
      }
      try writer.write(result.bytes)
      try writer.commit()
      report.written = true
    } catch {
      // Every error thrown above is a ShelfError (FileError or PNGError).
      report.error = error as? any ShelfError ?? FileError(path: job.input, reason: "\(error)", failure: .io)
    }
    return report
  }
}

extension PNGFileCrusher {
  /// The refusal of an output that already exists in the output folder (not for in-place
  /// crushing, dry runs or with `replaceExisting`); nil when it may be written.
  func existingOutput(_ output: RawPath) -> FileError? {
    guard case .folder = settings.destination, !settings.dryRun, !settings.replaceExisting,
      (try? FileStatus.lstat(output)) != nil
    else { return nil }
    return FileError(path: output, reason: "file exists (use --force to overwrite)", failure: .cannotCreate)
  }
}

/// The reports of a batch, stored by parallel tasks in job order.
private final class ReportCollector: Sendable {
  private let state: Mutex<(done: Int, reports: [PNGCrushReport?])>

  init(count: Int) { state = Mutex((0, Array(repeating: nil, count: count))) }

  /// Stores the report of job `index`; returns how many jobs are done.
  func store(_ report: PNGCrushReport, at index: Int) -> Int {
    state.withLock { state in
      state.reports[index] = report
      state.done += 1
      return state.done
    }
  }

  func all() -> [PNGCrushReport] { state.withLock { $0.reports.compactMap { $0 } } }
}

import ShelfCatalog
import ShelfCore
import ShelfWorkers

#if canImport(Glibc)
  import Glibc
#endif

/// The entry point of the `shelf` executable: parses the command line, runs the command,
/// and turns errors into one-line messages and sysexits exit codes.
package enum ShelfCommandLine {
  /// Runs shelf with the process's arguments and environment, then exits.
  package static func main() async -> Never {
    // The sandboxed extraction worker that index, info and extract start (not a command).
    if CommandLine.arguments.count == 2, CommandLine.arguments[1] == ExtractionWorker.argument {
      exit(ExtractionWorker.serve())
    }
    let environment = ProcessEnvironment.current
    let status = await run(
      arguments: CommandLineArgument.processArguments, environment: environment,
      console: Console(environment: environment))
    exit(status.code)
  }

  /// Runs shelf with the given arguments and returns the exit status.
  static func run(arguments: [CommandLineArgument], environment: [String: String], console: Console)
    async -> ExitStatus
  {
    let commands = CommandTable.commands
    let helpWidth = min(console.width, 100)
    var globalValues = ParsedArguments(commandName: "shelf")
    let result: ParseResult
    do {
      result = try ArgumentParser(commands: commands).parse(arguments, globals: &globalValues)
    } catch {
      reportUsage(error, console: console)
      return .usage
    }
    switch result {
    case .version:
      console.write("shelf \(ShelfInfo.version)\n")
      return .success
    case .help(let command):
      let renderer = HelpRenderer(commands: commands, width: helpWidth)
      console.write(command.map(renderer.help(for:)) ?? renderer.rootHelp())
      return .success
    case .helpOfHelp:
      console.write(HelpRenderer(commands: commands, width: helpWidth).helpOfHelp())
      return .success
    case .usageSummary:
      console.note(HelpRenderer(commands: commands, width: helpWidth).usageSummary())
      return .usage
    case .run(let command, let parsed):
      let globals: GlobalOptions
      do {
        globals = try GlobalOptions(parsed: globalValues, environment: environment)
      } catch {
        reportUsage(error, console: console)
        return .usage
      }
      let invocation = Invocation(
        command: command, arguments: parsed, globals: globals, console: console, environment: environment)
      do {
        return try await command.run(invocation)
      } catch let error as UsageError {
        reportUsage(error, console: console)
        return .usage
      } catch let error as any ShelfError {
        console.error(ErrorAdvice.message(for: error, command: command.name))
        return ExitStatus(failure: error.failure)
      } catch {
        console.error(String(describing: error))
        return .ioError
      }
    }
  }

  /// Prints a usage error: the message, the usage line and a hint.
  private static func reportUsage(_ error: UsageError, console: Console) {
    console.error(error.message)
    if error.commandName == HelpTopic.name {
      console.note("usage: \(HelpTopic.usage)")
      console.note("hint: run 'shelf help --help' for more information")
    } else if let name = error.commandName,
      let command = CommandTable.commands.first(where: { $0.name == name })
    {
      console.note("usage: \(command.usage)")
      console.note("hint: run 'shelf \(name) --help' for more information")
    } else {
      console.note("usage: \(ShelfInfo.usage)")
      console.note("hint: run 'shelf --help' to list the commands")
    }
  }
}

/// The process environment as a dictionary, read without Foundation.
enum ProcessEnvironment {
  static var current: [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    return result
  }
}

import ShelfAudio

/// `shelf devices`: List ALSA playback and capture devices.
enum DevicesCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let json = Flag(
    "json", help: "Print the list as a JSON array of {name, description, playback, capture}.")

  static let command = Command(
    name: "devices",
    abstract: "List ALSA playback and capture devices.",
    discussion: """
      Names and descriptions come from ALSA's device hints (what 'aplay -L' and 'arecord -L' \
      show): the PCMs of the sound cards and those defined in the ALSA configuration. Pass a \
      name to 'shelf play -D' or 'shelf record -D'.

      Without a sound card the list may hold only 'null'; 'default' is always accepted even \
      when it is not listed.
      """,
    arguments: [],
    options: [json],
    examples: [
      Example("shelf devices", "List devices with their direction and description."),
      Example("shelf devices --json", "The same as JSON, for scripts."),
    ],
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let devices = try ALSADevices.list()
    let console = invocation.console
    if invocation.arguments[DevicesCommand.json] {
      let items = devices.map { device in
        JSONValue.object([
          ("name", .string(device.name)), ("description", .string(device.description)),
          ("playback", .bool(device.playback)), ("capture", .bool(device.capture)),
        ])
      }
      console.write(JSONValue.array(items).serialized(pretty: console.stdoutIsTerminal) + "\n")
      return .success
    }
    if devices.isEmpty {
      console.note("no ALSA devices found")
      return .success
    }
    var rows = [["NAME", "DIRECTION", "DESCRIPTION"]]
    for device in devices {
      let direction = device.playback && device.capture ? "both" : device.playback ? "playback" : "capture"
      rows.append([device.name, direction, device.description])
    }
    let lines = TableRenderer(alignments: [.left, .left, .left]).render(rows)
    console.write(lines.joined(separator: "\n") + "\n")
    return .success
  }
}

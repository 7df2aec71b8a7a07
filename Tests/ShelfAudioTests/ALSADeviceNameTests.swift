import Testing

@testable import ShelfAudio

/// `-D file:PATH` as ALSA's file plugin needs it: the format from the extension, PATH quoted
/// and taken literally.
@Suite struct ALSADeviceNameTests {
  @Test func aFilePathGetsItsFormatFromItsExtensionAndIsQuoted() {
    #expect(ALSADeviceName.opened("file:/tmp/out.wav") == "file:'/tmp/out.wav',wav")
    #expect(ALSADeviceName.opened("file:/tmp/OUT.WAV") == "file:'/tmp/OUT.WAV',wav")
    #expect(ALSADeviceName.opened("file:/tmp/out.raw") == "file:'/tmp/out.raw',raw")
    #expect(ALSADeviceName.opened("file:/tmp/take 1, John's.wav") == "file:'/tmp/take 1, John\\'s.wav',wav")
    #expect(ALSADeviceName.opened("file:/tmp/back\\slash") == "file:'/tmp/back\\\\slash',raw")
    // ALSA expands %r, %c… in file names: shelf writes the file named.
    #expect(ALSADeviceName.opened("file:/tmp/a%r.wav") == "file:'/tmp/a%%r.wav',wav")
  }

  @Test func alsasOwnSpellingsNameTheSameFile() {
    for name in [
      "file:'/tmp/a.wav',raw", "file:\"/tmp/a.wav\"", "file:/tmp/a.wav,raw", "file:FILE=/tmp/a.wav",
      "file:FORMAT=raw,FILE='/tmp/a.wav'",
    ] {
      #expect(ALSADeviceName.opened(name) == "file:'/tmp/a.wav',raw")
    }
    #expect(ALSADeviceName.opened("file:'/tmp/a.raw',wav") == "file:'/tmp/a.raw',wav")
  }

  @Test func otherNamesStayAsTheyAre() {
    for name in [
      "file:", "file:{FILE /tmp/a}", "file:|cat >/dev/null", "default", "hw:0,0", "null", "plughw:1",
    ] {
      #expect(ALSADeviceName.opened(name) == name)
    }
  }
}

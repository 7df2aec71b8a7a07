import Foundation
import ShelfCore
import Testing

@testable import ShelfFacts

// Text in every encoding the catalogue detects: real sentences written by iconv (an independent
// encoder), then detected, decoded, counted and indexed by shelf; counts checked against wc.

/// Real sentences, one language per key, in the encodings their languages use.
let sentences: [String: String] = [
  "fr":
    "Le petit déjeuner est servi à huit heures dans la salle à manger.\nNous irons ensuite au marché acheter des légumes frais, du fromage et une bouteille de cidre.\nÀ midi, mon frère préparera une crème brûlée pour le dessert.\n",
  "fr15":
    "Le cœur de la ville bat au rythme des œuvres exposées au musée.\nL'entrée coûte cinq euros, soit 5 € par personne, et l'œil s'émerveille.\n",
  "de":
    "„Über den Wolken“ muss die Freiheit wohl grenzenlos sein – sagt man.\nAlle Ängste, alle Sorgen blieben darunter verborgen.\nDas Ticket kostet 20 € für die ganze Familie, Grüße aus München!\n",
  "pl":
    "Zażółć gęślą jaźń. W Szczebrzeszynie chrząszcz brzmi w trzcinie.\nJutro pojedziemy pociągiem do Krakowa, żeby zobaczyć Wawel i Sukiennice.\nProszę pamiętać o biletach i o kanapkach na drogę.\n",
  "cs":
    "Příliš žluťoučký kůň úpěl ďábelské ódy.\nZítra ráno pojedeme vlakem do Brna a odpoledne se vrátíme domů.\nNezapomeňte si vzít deštník, protože podle předpovědi bude pršet.\n",
  "mt":
    "Il-ħajja f'Malta hija sabiħa ħafna matul is-sajf.\nIż-żgħażagħ imorru l-baħar kuljum u jieklu ġelat ħelu.\nIl-knejjes qodma ta' Għawdex huma famużi madwar id-dinja.\n",
  "lv":
    "Rīgā šodien ir silts laiks, un cilvēki staigā pa vecpilsētas ielām.\nMēs ēdām zivis un dzērām kafiju mazā kafejnīcā pie upes.\nRīt brauksim uz jūru, ja nelīs lietus.\n",
  "ru":
    "Привет! Сегодня в Москве тёплая погода, и мы гуляем по набережной.\nВечером мы пойдём в театр смотреть новую постановку Чехова.\nНе забудь купить хлеб и молоко по дороге домой.\n",
  "uk":
    "Привіт! Сьогодні в Києві тепло, і ми гуляємо біля Дніпра.\nЇжачок ґречно їсть яблуко, а діти співають пісні.\nЄдина наша мрія - щоб усі були здорові.\n",
  "ar":
    "مرحبا بكم في مدينة القاهرة الجميلة.\nنذهب غدا إلى السوق لشراء الخبز والفواكه الطازجة.\nالطقس اليوم مشمس وحار جدا في فصل الصيف.\n",
  "el":
    "Καλημέρα σας! Σήμερα ο καιρός στην Αθήνα είναι ζεστός και ηλιόλουστος.\nΤο απόγευμα θα πάμε στην Ακρόπολη με τους φίλους μας.\nΜην ξεχάσεις να αγοράσεις ψωμί και γάλα.\n",
  "el-windows":
    "“Καλημέρα σας!” – είπε Σήμερα ο καιρός στην Αθήνα είναι ζεστός και ηλιόλουστος.\nΤο απόγευμα θα πάμε στην Ακρόπολη με τους φίλους μας.\nΜην ξεχάσεις να αγοράσεις ψωμί και γάλα.\n",
  "he":
    "שלום לכולם! היום מזג האוויר בתל אביב חם ונעים.\nבערב נלך לים עם החברים ונאכל ארוחת ערב במסעדה.\nאל תשכח לקנות לחם וחלב בדרך הביתה.\n",
  "tr":
    "Günaydın! Bugün İstanbul'da hava çok güzel ve güneşli.\nÖğleden sonra Boğaz'da çay içip simit yiyeceğiz.\nAkşam yemeğinde şiş kebap ve ayran var.\n",
  "tr-windows":
    "“Günaydın!” – Bugün İstanbul'da hava çok güzel ve güneşli.\nÖğleden sonra Boğaz'da çay içip simit yiyeceğiz.\nAkşam yemeğinde şiş kebap ve ayran var.\n",
  "is":
    "Góðan daginn! Í dag er fallegt veður í Reykjavík og sólin skín.\nVið ætlum að fara í sund og síðan að borða fisk á veitingastað.\nÞetta verður skemmtilegur dagur fyrir alla fjölskylduna.\n",
  "th": "สวัสดีครับ วันนี้อากาศที่กรุงเทพร้อนมาก\nพรุ่งนี้เราจะไปตลาดน้ำเพื่อซื้อผลไม้และขนม\nอย่าลืมเอาร่มไปด้วยเพราะอาจจะมีฝนตก\n",
  "lt":
    "Labas rytas! Šiandien Vilniuje šilta ir saulėta diena.\nPopiet eisime į senamiestį pasivaikščioti ir išgerti kavos.\nNepamiršk nupirkti duonos ir pieno grįždamas namo.\n",
  "lt-windows":
    "„Labas rytas!“ – Šiandien Vilniuje šilta ir saulėta diena.\nPopiet eisime į senamiestį pasivaikščioti ir išgerti kavos.\nNepamiršk nupirkti duonos ir pieno grįždamas namo.\n",
  "cy":
    "Bore da! Mae'r tywydd yn braf heddiw yng Nghaerdydd.\nRydym yn mynd i'r traeth ŵyl y banc i weld y môr a'r tŷ bach ar y bryn.\nMae'r ŵyn yn chwarae yn y caeau ger yr afon.\n",
  "cy-udhr":
    "Genir pawb yn rhydd ac yn gydradd â'i gilydd mewn urddas a hawliau. Fe'u cynysgaeddir â rheswm a chydwybod, a dylai pob un ymddwyn y naill at y llall mewn ysbryd cymodlon.\nMae'r tŷ ar bwys y dŵr, ac mae'r ŵyr yn mynd i'r ŵyl.\nMae'r gŵr yn byw mewn tŷ gwyn ym Mhen Llŷn.\n",
  "ga-old":
    "Ḃí mo ṁáthair sa ċistin agus ḃí m'aṫair ag léaṁ an ṗáipéir.\nTá an oíċe fuar agus tá an ġealaċ ag soilsiú.\n",
  "is-udhr":
    "Allir menn eru bornir frjálsir og jafnir öðrum að virðingu og réttindum. Þeir eru gæddir vitsmunum og samvisku, og ber þeim að breyta bróðurlega hverjum við annan.\nÞað er gott veður í dag.\n",
  "is-windows":
    "„Allir menn eru bornir frjálsir og jafnir öðrum að virðingu og réttindum.“ – Þeir eru gæddir vitsmunum og samvisku, og ber þeim að breyta bróðurlega hverjum við annan.\n",
  "is-udhr-prompt":
    "Allir menn eru bornir frjálsir og jafnir öðrum að virðingu og réttindum. Þeir eru gæddir vitsmunum og samvisku, og ber þeim að breyta bróðurlega hverjum við annan.\nÞessi aðgerð krefst rótaraðgangs. Viltu halda áfram? Ýttu á Enter til að staðfesta.\n",
  "is-windows-prompt":
    "„Allir menn eru bornir frjálsir og jafnir öðrum að virðingu og réttindum. Þeir eru gæddir vitsmunum og samvisku, og ber þeim að breyta bróðurlega hverjum við annan.\nÞessi aðgerð krefst rótaraðgangs. Viltu halda áfram? Ýttu á Enter til að staðfesta.“\n",
  "hu":
    "Minden emberi lény szabadon születik és egyenlő méltósága és joga van. Az emberek, ésszel és lelkiismerettel bírván, egymással szemben testvéri szellemben kell hogy viseltessenek.\nÁrvíztűrő tükörfúrógép. A gyűlés után hosszú sétát tettünk a főváros utcáin.\n",
  "hu-windows":
    "„Minden emberi lény szabadon születik és egyenlő méltósága és joga van.” – Az emberek, ésszel és lelkiismerettel bírván, egymással szemben testvéri szellemben kell hogy viseltessenek.\nÁrvíztűrő tükörfúrógép. A gyűlés után hosszú sétát tettünk a főváros utcáin.\n",
  "hr":
    "Sva ljudska bića rađaju se slobodna i jednaka u dostojanstvu i pravima. Ona su obdarena razumom i sviješću pa jedna prema drugima trebaju postupati u duhu bratstva.\nIzmeđu rijeke i mora leži grad, a međa je označena kamenom. Đurđevak cvjeta u šumi.\n",
  "pl-udhr":
    "Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych praw. Są oni obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu braterstwa.\n",
  "ro":
    "Bună dimineața! Astăzi vremea în București este frumoasă și însorită.\nDupă-amiază vom merge în parc să ne plimbăm și să mâncăm înghețată.\nNu uita să cumperi pâine și lapte când te întorci acasă.\n",
  "vi":
    "Xin chào các bạn! Hôm nay thời tiết ở Hà Nội rất đẹp.\nChúng tôi sẽ đi dạo quanh hồ Hoàn Kiếm và uống cà phê.\nĐừng quên mua bánh mì và sữa trên đường về nhà.\n",
  "ja": "今日はとても良い天気です。午後は友達と一緒に公園を散歩する予定です。\n夜は家族と一緒に晩ご飯を食べて、テレビを見ました。\n明日は朝早く起きて、電車で東京へ行きます。\n",
  "ko": "안녕하세요! 오늘은 날씨가 아주 좋습니다.\n오후에는 친구와 함께 공원에서 산책을 할 예정입니다.\n저녁에는 가족과 함께 맛있는 불고기를 먹었습니다.\n",
  "zh": "今天天气很好，我们一起去公园散步吧。\n下午我要去图书馆借几本关于历史的书。\n晚上全家人一起吃饭，然后看电视节目。\n",
  "tw": "今天天氣很好，我們一起去公園散步吧。\n下午我要去圖書館借幾本關於歷史的書。\n晚上全家人一起吃飯，然後看電視節目。\n",
]

/// (iconv's name to write the text in, the sentences, the encoding shelf must report). Where
/// two names decode these bytes to the same text (ISO-8859-8 and windows-1255 for Hebrew
/// without points), the one uchardet names is expected.
let encodingCases: [(iconv: String, language: String, expected: TextEncoding)] = [
  ("ISO-8859-1", "fr", .latin1), ("WINDOWS-1252", "de", .windows1252), ("ISO-8859-15", "fr15", .iso8859_15),
  ("MACINTOSH", "fr", .macintosh), ("ISO-8859-2", "pl", .iso8859_2), ("WINDOWS-1250", "cs", .windows1250),
  ("ISO-8859-3", "mt", .iso8859_3), ("ISO-8859-4", "lv", .iso8859_4), ("ISO-8859-5", "ru", .iso8859_5),
  ("WINDOWS-1251", "ru", .windows1251), ("KOI8-R", "ru", .koi8r), ("KOI8-U", "uk", .koi8u),
  ("IBM866", "ru", .ibm866), ("IBM855", "ru", .ibm855), ("MAC-CYRILLIC", "ru", .macCyrillic),
  ("ISO-8859-6", "ar", .iso8859_6), ("WINDOWS-1256", "ar", .windows1256), ("ISO-8859-7", "el", .iso8859_7),
  ("WINDOWS-1253", "el-windows", .windows1253), ("ISO-8859-8", "he", .windows1255),
  ("WINDOWS-1255", "he", .windows1255),
  ("ISO-8859-9", "tr", .iso8859_9), ("WINDOWS-1254", "tr-windows", .windows1254),
  ("ISO-8859-10", "lv", .iso8859_10),
  ("TIS-620", "th", .tis620), ("ISO-8859-11", "th", .tis620), ("ISO-8859-13", "lt", .iso8859_13),
  ("WINDOWS-1257", "lt-windows", .windows1257), ("ISO-8859-16", "ro", .iso8859_16),
  ("WINDOWS-1258", "vi", .windows1258),
  // Celtic text in ISO-8859-14, which uchardet calls windows-1252 (ŵ and ŷ read as ð and þ), and
  // Icelandic, whose ð and þ are letters: it stays Latin-1 (uchardet calls it ISO-8859-9).
  ("ISO-8859-14", "cy", .iso8859_14), ("ISO-8859-14", "cy-udhr", .iso8859_14),
  ("ISO-8859-14", "ga-old", .iso8859_14), ("ISO-8859-1", "is-udhr", .latin1),
  ("WINDOWS-1252", "is-windows", .windows1252),
  // Icelandic that uchardet calls ISO-8859-13 or windows-1257 (ð þ æ read as š ž ę): Latin-1 by
  // its letters; and Central European text, whose ć đ ţ are the same bytes, that must stay so.
  ("ISO-8859-1", "is-udhr-prompt", .latin1), ("WINDOWS-1252", "is-windows-prompt", .windows1252),
  ("ISO-8859-2", "hu", .iso8859_2), ("WINDOWS-1250", "hu-windows", .windows1250),
  ("ISO-8859-2", "hr", .iso8859_2), ("WINDOWS-1250", "hr", .windows1250),
  ("ISO-8859-2", "pl-udhr", .iso8859_2), ("WINDOWS-1250", "pl-udhr", .windows1250),
  ("ISO-8859-2", "cs", .iso8859_2),
  ("SHIFT_JIS", "ja", .shiftJIS), ("CP932", "ja", .shiftJIS), ("EUC-JP", "ja", .eucJP),
  ("ISO-2022-JP", "ja", .iso2022JP), ("EUC-KR", "ko", .eucKR), ("CP949", "ko", .eucKR),
  ("ISO-2022-KR", "ko", .iso2022KR), ("JOHAB", "ko", .johab), ("GB2312", "zh", .gb18030),
  ("GBK", "zh", .gb18030),
  ("GB18030", "zh", .gb18030), ("BIG5", "tw", .big5), ("EUC-TW", "tw", .eucTW),
  ("UTF-8", "ja", .utf8), ("UTF-16LE", "ru", .utf16le), ("UTF-16BE", "el", .utf16be),
  ("UTF-32LE", "ko", .utf32le), ("UTF-32BE", "zh", .utf32be),
  // The DOS and Mac code pages uchardet has no model for (it calls Baltic DOS text Mac Central
  // European, Ukrainian DOS text ibm866), Mac Roman German, and UTF-7.
  ("IBM775", "lt", .ibm775), ("IBM775", "lv", .ibm775), ("CP1125", "uk", .cp1125),
  ("IBM852", "pl", .ibm852), ("IBM852", "cs", .ibm852), ("IBM852", "hu", .ibm852),
  ("MAC-CENTRALEUROPE", "pl", .macCentralEurope), ("MAC-CENTRALEUROPE", "cs", .macCentralEurope),
  ("MACINTOSH", "de", .macintosh), ("UTF-7", "ru", .utf7), ("UTF-7", "fr", .utf7), ("UTF-7", "ja", .utf7),
  // windows-1252 only with a byte of 0x80–0x9F (the "de" text's „“ – €): without one it is Latin-1.
  ("WINDOWS-1252", "fr", .latin1),
]

/// Runs a tool and returns its standard output.
func run(_ tool: String, _ arguments: [String], input: [UInt8], environment: [String: String] = [:])
  throws -> [UInt8]
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: tool)
  process.arguments = arguments
  process.environment = environment
  let stdin = Pipe()
  let stdout = Pipe()
  process.standardInput = stdin
  process.standardOutput = stdout
  try process.run()
  try stdin.fileHandleForWriting.write(contentsOf: Data(input))
  try stdin.fileHandleForWriting.close()
  let output = stdout.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  #expect(process.terminationStatus == 0, "\(tool) \(arguments)")
  return Array(output)
}

func iconv(_ text: String, to encoding: String) throws -> [UInt8] {
  try run("/usr/bin/iconv", ["-f", "UTF-8", "-t", encoding], input: Array(text.utf8))
}

/// `wc -l -w` of UTF-8 text in a UTF-8 locale.
private func wordCount(_ text: String) throws -> (lines: Int, words: Int) {
  let output = try run(
    "/usr/bin/wc", ["-l", "-w"], input: Array(text.utf8), environment: ["LC_ALL": "C.UTF-8"])
  let fields = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap {
    Int($0)
  }
  return (fields[0], fields[1])
}

@Test(arguments: encodingCases.indices)
func realTextIsDetectedDecodedCountedAndSearchable(_ index: Int) throws {
  let (iconvName, language, expected) = encodingCases[index]
  let text = try #require(sentences[language])
  let bytes = try iconv(text, to: iconvName)
  let detected = try #require(TextSniffer.detectEncoding(TextSample(bytes)), "\(iconvName)")
  #expect(detected == DetectedEncoding(encoding: expected, bom: false), "\(iconvName)")
  // Decoded with the reported encoding, the bytes give back the text (canonically equal: iconv
  // writes Vietnamese tones as combining marks).
  let decoded = TextAnalyzer.displayText(try TextDecoder(detected.encoding).decodeAll(bytes))
  #expect(decoded == text, "\(iconvName)")

  let analysis = try TextAnalyzer.analyze(MemoryBytes(bytes), encoding: detected)
  let counted = try wordCount(text)
  #expect(analysis.facts.lines == counted.lines, "\(iconvName)")
  #expect(analysis.facts.words == counted.words, "\(iconvName)")
  // Characters are the scalars of the decoded text: one per byte in a single-byte encoding.
  let scalars = expected.isSingleByte ? bytes.count : text.unicodeScalars.count
  #expect(analysis.facts.chars == scalars, "\(iconvName)")
  #expect(analysis.facts.encoding == expected)
  // The index gets the decoded words: the first line's first word is searchable.
  let firstWord = String(text.drop { !$0.isLetter }.prefix { $0.isLetter })
  #expect(analysis.searchText.contains(firstWord), "\(iconvName): \(firstWord)")
}

@Test func byteOrderMarksAnnounceUTF16AndUTF32() throws {
  let text = try #require(sentences["ko"])
  for (mark, iconvName, encoding) in [
    ([0xFF, 0xFE, 0, 0] as [UInt8], "UTF-32LE", TextEncoding.utf32le),
    ([0, 0, 0xFE, 0xFF], "UTF-32BE", .utf32be),
    ([0xFF, 0xFE], "UTF-16LE", .utf16le), ([0xFE, 0xFF], "UTF-16BE", .utf16be),
    ([0xEF, 0xBB, 0xBF], "UTF-8", .utf8),
  ] {
    let bytes = mark + (try iconv(text, to: iconvName))
    let detected = try #require(TextSniffer.detectEncoding(TextSample(bytes)))
    #expect(detected == DetectedEncoding(encoding: encoding, bom: true))
    let analysis = try TextAnalyzer.analyze(MemoryBytes(bytes), encoding: detected)
    #expect(analysis.facts.chars == text.unicodeScalars.count, "\(iconvName)")
    #expect(analysis.facts.firstLine == "안녕하세요! 오늘은 날씨가 아주 좋습니다.")
  }
}

@Test func wordsAreCountedAsWcCountsThem() throws {
  // No-break and ideographic spaces separate words; a line of Chinese without spaces is one word;
  // a zero-width space and a control character do not separate.
  let text = "a\u{00A0}b c\u{3000}d e\u{2003}f g\u{202F}h i\u{0001}j k\u{200B}l\n今天天气很好，我们一起去公园散步吧。\n"
  let analysis = try TextAnalyzer.analyze(
    MemoryBytes(Array(text.utf8)), encoding: DetectedEncoding(encoding: .utf8, bom: false))
  #expect(analysis.facts.words == 11)
  #expect(analysis.facts.words == (try wordCount(text)).words)
}

@Test func binaryAfterALongASCIIHeaderIsNotText() throws {
  // A FITS file: 8,640 bytes of 80-column ASCII header cards, then big-endian binary pixels.
  var header = ""
  for card in [
    "SIMPLE  =                    T", "BITPIX  =                   16", "NAXIS   =                    2",
    "NAXIS1  =                  100", "NAXIS2  =                  100", "END",
  ] {
    header += card.padding(toLength: 80, withPad: " ", startingAt: 0)
  }
  var bytes = Array(header.padding(toLength: 8640, withPad: " ", startingAt: 0).utf8)
  for value in 0..<10_000 { bytes += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
  let sniff = try ContentSniffer.sniff(MemoryBytes(bytes), fileExtension: "fits")
  #expect(sniff.kind == .image && sniff.mime == "image/fits")
  #expect(sniff.textEncoding == nil)
  // The first 8 KiB alone look like ASCII text: only the whole sample shows the binary.
  #expect(
    TextSniffer.detectEncoding(Array(bytes.prefix(8192))) == DetectedEncoding(encoding: .ascii, bom: false))

  // PostScript with binary image data after its text prolog.
  let postscript =
    Array("%!PS-Adobe-3.0\n%%BoundingBox: 0 0 100 100\n".utf8) + Array(repeating: 0x20, count: 9000)
    + [0x00, 0x01, 0x02, 0x8F, 0x03]
  #expect(try ContentSniffer.sniff(MemoryBytes(postscript), fileExtension: "ps").kind == .other)
}

@Test func aLateFirstNonASCIIByteIsSeen() throws {
  // 200 KiB of ASCII, then a Latin-1 line: the whole file (under 1 MiB) decides.
  let ascii = Array(String(repeating: "plain ASCII words on a line\n", count: 7500).utf8)
  let latin1 =
    ascii + (try iconv("Résumé: le café était très bon, merci beaucoup à vous.\n", to: "ISO-8859-1"))
  let found = try ContentSniffer.sniff(MemoryBytes(latin1), fileExtension: "txt")
  #expect(found.textEncoding == DetectedEncoding(encoding: .latin1, bom: false))
  let analysis = try TextAnalyzer.analyze(MemoryBytes(latin1), encoding: try #require(found.textEncoding))
  #expect(analysis.facts.chars == latin1.count)

  // 3 MiB of ASCII ending in UTF-8: the evenly spaced samples reach the end of the file.
  let long =
    Array(String(repeating: "plain ASCII words on a line\n", count: 113_000).utf8)
    + Array("Grüße aus Köln\n".utf8)
  #expect(long.count > 3 << 20)
  let late = try ContentSniffer.sniff(MemoryBytes(long), fileExtension: "txt")
  #expect(late.textEncoding == DetectedEncoding(encoding: .utf8, bom: false))
  let counted = try TextAnalyzer.analyze(MemoryBytes(long), encoding: try #require(late.textEncoding))
  #expect(counted.facts.chars == long.count - 3)
  #expect(counted.facts.lines == 113_001)
}

@Test func utf16And32WithoutMarkNeedTheirZeroPattern() throws {
  let text = "Привет, мир! Hello\n"
  #expect(
    TextSniffer.detectEncoding(TextSample(try iconv(text, to: "UTF-16BE")))
      == DetectedEncoding(encoding: .utf16be, bom: false))
  #expect(
    TextSniffer.detectEncoding(TextSample(try iconv(text, to: "UTF-32BE")))
      == DetectedEncoding(encoding: .utf32be, bom: false))
  // Zeros without that pattern, or a few valid-looking units without any ASCII, are binary.
  #expect(TextSniffer.detectEncoding(TextSample([0, 1, 2, 3, 0, 0, 0xFF, 0x80])) == nil)
  #expect(TextSniffer.detectEncoding(TextSample([0x04, 0x3F, 0x04, 0x40])) == nil)
}

@Test func controlCharactersOutsideTextAreBinary() {
  #expect(TextSniffer.detectEncoding(TextSample(Array("abc\u{01}def".utf8))) == nil)
  #expect(TextSniffer.detectEncoding(TextSample(Array("Grüße\u{02}".utf8))) == nil)
  // DEL, or a control anywhere in a long run of printable ASCII, is seen too.
  for offset in 0..<17 {
    var bytes = Array(String(repeating: "printable ", count: 4).utf8)
    bytes[offset] = 0x7F
    #expect(TextSniffer.detectEncoding(TextSample(bytes)) == nil, "DEL at \(offset)")
    bytes[offset] = 0x03
    #expect(TextSniffer.detectEncoding(TextSample(bytes)) == nil, "ETX at \(offset)")
  }
  // Well-formed UTF-8 is UTF-8 even with a C1 control (`file`, chardet and charset_normalizer
  // agree; the windows-1250 reading, "cafÂ…", is no likelier).
  #expect(TextSniffer.detectEncoding(TextSample(Array("caf\u{85}".utf8)))?.encoding == .utf8)
  // Tab, form feed, escape and bell are.
  #expect(
    TextSniffer.detectEncoding(TextSample(Array("a\tb\u{0C}\u{1B}[1mbold\u{07}\n".utf8)))
      == DetectedEncoding(encoding: .ascii, bom: false))
}

@Test func netpbmAndXPMAreImagesNotText() {
  let plainPPM = Array("P3\n# a red pixel\n1 1\n255\n255 0 0\n".utf8)
  #expect(
    ContentSniffer.sniff(prefix: plainPPM, fileExtension: "ppm")
      == SniffResult(
        kind: .image, mime: "image/x-portable-pixmap", detectedBy: .contentAndExtension,
        extensionMismatch: false))
  #expect(
    ContentSniffer.sniff(prefix: Array("P1\n2 1\n0 1\n".utf8), fileExtension: "").mime
      == "image/x-portable-bitmap")
  #expect(
    ContentSniffer.sniff(prefix: Array("P2 1 1 255 7\n".utf8), fileExtension: "").mime
      == "image/x-portable-graymap")
  let xpm = Array("/* XPM */\nstatic char *dot[] = {\n\"1 1 1 1\",\n\". c #FF0000\",\n\".\"};\n".utf8)
  #expect(ContentSniffer.sniff(prefix: xpm, fileExtension: "xpm").kind == .image)
  #expect(ContentSniffer.sniff(prefix: xpm, fileExtension: "xpm").mime == "image/x-xpixmap")
  // A note that starts with "P3" is still text.
  #expect(
    ContentSniffer.sniff(prefix: Array("P3 is the third point\n".utf8), fileExtension: "txt").kind == .text)
}

@Test func aBinaryPrefixRulesTextOutWithoutReadingFurther() throws {
  #expect(TextSniffer.prefixRulesOutText([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0, 0, 0]))
  #expect(TextSniffer.prefixRulesOutText(Array("abc\u{01}def".utf8)))
  // UTF-16 without a mark, ISO-2022-KR's shift controls after an escape, plain text: read on.
  #expect(!TextSniffer.prefixRulesOutText(try iconv("Привет, мир!\n", to: "UTF-16LE")))
  #expect(!TextSniffer.prefixRulesOutText(try iconv(try #require(sentences["ko"]), to: "ISO-2022-KR")))
  #expect(!TextSniffer.prefixRulesOutText(Array("plain text\n".utf8)))
}

@Test func westernSymbolsBesideWordsStayLatin1() throws {
  // Bytes that ISO-8859-14 reads as Celtic letters, where Latin-1 text has symbols beside words:
  // Spanish ¿ and ¡, µ and ° in measures, Catalan l·l, German »quotes«, Danish æ and ø.
  let texts = [
    "Y tú, ¿qué piensas? ¡qué bonito día! Son las 10:30 y hace 25 °C.\n",
    "La col·lecció del museu és molt gran: hi ha cèl·lules de 10 µm, pintures i una il·lustració preciosa.\nA la plaça, els nens mengen gelat i els avis parlen de l'època en què tot era més tranquil.\n",
    "»ja« sagte er, »das ist schön«, und ging über die Straße.\n",
    "Grøn æblegrød med fløde, og så drak vi kaffe på kroen.\n",
  ]
  for text in texts {
    let bytes = try iconv(text, to: "ISO-8859-1")
    let detected = try #require(TextSniffer.detectEncoding(TextSample(bytes)))
    #expect(detected.encoding != .iso8859_14, "\(text)")
    #expect(TextAnalyzer.displayText(try TextDecoder(detected.encoding).decodeAll(bytes)) == text, "\(text)")
  }
}

/// A block that ends inside a two-byte ISO-2022 character keeps the shift state: split at
/// every offset, the decoded text is the whole text (a reset there read the rest of the line
/// as ASCII and counted extra characters).
@Test(arguments: [("ISO-2022-JP", "ja", TextEncoding.iso2022JP), ("ISO-2022-KR", "ko", .iso2022KR)])
func stateIsKeptAcrossBlocksOfAStatefulEncoding(iconvName: String, language: String, encoding: TextEncoding)
  throws
{
  let text = try #require(sentences[language])
  let bytes = try iconv(text, to: iconvName)
  let expected = text.unicodeScalars.map(\.value)
  for split in 1..<bytes.count {
    let decoder = try TextDecoder(encoding)
    var decoded: [UInt32] = []
    decoder.decode(bytes[..<split], final: false, into: &decoded)
    decoder.decode(bytes[split...], final: true, into: &decoded)
    #expect(decoded == expected, "\(iconvName) split at byte \(split)")
  }
}

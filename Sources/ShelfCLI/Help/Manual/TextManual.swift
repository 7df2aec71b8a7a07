/// The sections of shelf-info(1) on text: how a file is judged to be text, how its encoding is
/// chosen and named, and how lines, words and characters are counted, so that a user can
/// predict what shelf reports for a file and why.
enum TextManual {
  static let encodings = ManSection(
    "Text encodings",
    #"""
    Whether a file is text, and its encoding, are decided from the whole file up to 1 MiB and
    from 16 evenly spaced 64 KiB samples beyond, so a first non-ASCII byte late in a file is
    seen, and a FITS image or a PostScript file whose binary data follows an ASCII header is not
    text. In order: a byte-order mark (UTF-8, UTF-16, UTF-32); zero bytes (UTF-16 or UTF-32
    without a mark when the zeros fall on one parity and the text decodes, else binary); UTF-8
    (well-formed in the whole file, read through however long it is, C1 controls allowed, as
    file and chardet judge it); ASCII (with escape sequences: ISO-2022-JP, -KR or -CN; with
    shifts: UTF-7's +...- runs and HZ's ~{...~}, named only when every shift in the file
    decodes and one gives what chance would not: for UTF-7 a run closed by -, a letter below
    U+0800 or two CJK or Hangul characters from a run that is not a word; so C++, a+b, ~/bin,
    ~{a,b}, vim +MANPAGER or a regular expression's [+1yY] in plain text stay ascii); then
    uchardet (Mozilla's detector) for the legacy encodings, its answer weighed against the
    encodings it confuses (an ISO-8859 part and its Windows code page; Latin-1, Latin-9 and Mac
    Roman; Mac Central European and Mac Roman; KOI8-R and KOI8-U; Latin-1 and the ISO-8859
    parts of Esperanto, the Baltic and Nordic languages and VISCII, which it names for Western
    text with a few accents) by how word-like the decoded text is, and checked: bytes that do
    not decode, or decode to control characters other than tab, line feed, vertical tab, form
    feed, carriage return, backspace, bell, escape and ^Z, are not text. The DOS and Mac code
    pages uchardet has no model for are weighed too when its answer reads badly or the text has
    more than one high byte to tell them by: ibm852 and x-mac-ce beside Central European
    answers, ibm775 (which it calls Mac Central European or ISO-8859-13) beside Baltic ones,
    cp1125 beside ibm866 (Ukrainian і, which ibm866 reads as the Belarusian ў). When uchardet's
    answer reads badly or does not decode, or it has none, the other encodings that decode are
    weighed the same way; one replaces an answer that decodes only when it reads more of the
    bytes where they differ as letters inside words (so a table of lone letters in Latin-1, as
    in groff's hyphenation codes or Vim's keymaps, stays latin-1).

    When several encodings read a file's bytes alike, the most common is named: latin-1, else
    windows-1252 (so windows-1252 only when a byte 0x80-0x9F occurs), else macintosh; an
    English file with one ó is latin-1, and iso-8859-15 is named when its € Œ œ Š š Ž ž Ÿ occur.

    encoding is the lower-case IANA or WHATWG name:

      ascii  utf-8  utf-16le  utf-16be  utf-32le  utf-32be
      latin-1 (ISO-8859-1)  iso-8859-2 ... iso-8859-16
      windows-1250 ... windows-1258  koi8-r  koi8-u
      ibm775  ibm852  ibm855  ibm866  cp1125  macintosh
      x-mac-cyrillic  x-mac-ce  tis-620  viscii  shift_jis  euc-jp
      iso-2022-jp  euc-kr  iso-2022-kr  johab  gb18030  iso-2022-cn
      hz-gb-2312  big5  euc-tw  utf-7

    A name is decoded, through glibc's iconv, as the superset WHATWG decodes it as: shift_jis as
    windows-31j, euc-kr as windows-949, big5 as Big5-HKSCS, tis-620 as windows-874; GB2312 and
    GBK text is reported as gb18030. glibc has no HZ: shelf reads its escapes itself (~~ a
    tilde, ~ and a line feed a continued line) and the GB2312 pairs between ~{ and ~} through
    EUC-CN.

    uchardet has no Celtic or Icelandic model. Where it answers Latin-1 or windows-1252, text
    whose ð and þ stand where Welsh ŵ and ŷ stand (after a consonant, dŵr, tŷ; opening a word,
    ŵyl) or whose symbols sit inside words as Irish dotted consonants (oiḋċe) is reported as
    iso-8859-14, unless it reads as Icelandic or Faroese (þ opening a word, ð after a vowel, æ,
    ø, ý). Icelandic text it calls ISO-8859-9 (ð and þ as ğ and ş) is reported as latin-1 when
    á, í, ó, ú and æ outnumber ý (Turkish ı). Icelandic text it calls ISO-8859-2, ISO-8859-4,
    ISO-8859-13, windows-1250 or windows-1257 (ð þ æ as đ ţ ć or š ž ę) is reported as latin-1
    (or windows-1252) when, read as Latin-1, its Icelandic evidence (þ opening a word, ð or þ
    after a vowel, æ) outnumbers four to one the letters and in-word symbols Icelandic does not
    use (Czech č ě š, Polish ł ą ż, Hungarian ő ű). Celtic text without those letters decodes
    the same as Latin-1 and is reported so.

    uchardet 0.0.7 names no language, so there is no language field.
    """#)

  static let counts = ManSection(
    "Text counts",
    #"""
    Counts stream over the whole file, at any size. chars are the Unicode scalar values of the
    decoded text (one per byte in a single-byte encoding; an undecodable byte counts as one).
    words follow wc -w in a UTF-8 locale (GNU coreutils 9.1): runs between white space, where
    white space is tab, line feed, vertical tab, form feed, carriage return, space, U+00A0,
    U+1680, U+2000 to U+200A, U+202F, U+205F, U+2060 and U+3000, so a line of Chinese or
    Japanese without spaces is one word. lines are line breaks (LF, CR LF or CR) plus an
    unterminated last line; endings names which breaks the file uses.

    The full-text index gets the decoded text with accents folded: shelf ls привет finds a
    KOI8-R note, and creme finds crème.
    """#)
}

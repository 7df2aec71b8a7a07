import ShelfCatalog
import ShelfCore

/// The query language on the command line: one piece for every command that takes a query
/// (`ls`, `stats`, `extract`, `play`, and the next one), so that each accepts exactly the
/// same terms, refuses the same mistakes with the same messages, and documents them alike.
/// A command takes `argument(optional:)` and `syntax` for its page, marks itself with
/// `acceptsNegatedTerms` (the parser then keeps `-kind:image` a term and refuses `-holiday`,
/// see `ArgumentParser.excludedWord`) and builds its query with `query(_:adding:)`.
enum QueryTerms {
  /// The `<query> ...` argument of a command whose positional arguments are query terms.
  static func argument(optional: Bool) -> ArgumentSpec {
    ArgumentSpec(
      "query", help: "Query terms such as kind:audio or root:'*/Backup/*' (see QUERY SYNTAX in shelf-ls(1)).",
      optional: optional, repeating: true, completion: .queryTerms)
  }

  /// The query the terms make, with `required` terms of the command's own added (`play`'s
  /// `kind:audio`). A term it cannot understand is a usage error (64) naming it.
  /// A `copy-in:` folder starting with `~/` is under `$HOME` (from `environment`), as the shell
  /// would have expanded it had it stood alone.
  static func query(_ terms: [String], adding required: [String] = [], environment: [String: String] = [:])
    throws -> CatalogQuery
  {
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
    let expanded = terms.map { term -> String in
      for prefix in ["copy-in:~/", "-copy-in:~/"] where term.hasPrefix(prefix) {
        guard let home else { return term }
        return String(prefix.dropLast(2)) + home + "/" + term.dropFirst(prefix.count)
      }
      return term
    }
    return try CatalogQuery(arguments: expanded + required)
  }

  /// The QUERY SYNTAX section of the man pages of the commands that take a query; its lists
  /// of fields come from `FactField.table`.
  static let syntax = ManSection(
    "QUERY SYNTAX",
    """
    A query is a list of terms; an entry must match every term.

      field:value      the field matches value (how: see below)
      field:=value     the field is exactly value
      field>v  field>=v  field<v  field<=v  field!=v
      field:a..b       a range, ends included; either end may be left out
      -term            negation: entries that do not match the term
      a,b              OR: kind:image,kind:audio or kind:image,audio
      word             searched in names, paths, audio tags, plist keys and text

    How field:value matches depends on the field:

    \(matchingLists)
      live_photo       yes or no, else a glob of the other half's path (live_photo:'*.MOV')
      key              a top-level plist key: contains; := the whole key
      copies           how many other catalogued files have the same content, byte for
                       byte (copies>0, copies:2); hard links of one file are one file
      copy-in          copy-in:FOLDER: another catalogued file with the same content lies
                       under FOLDER (a leading ~/ is $HOME); -copy-in:~/Pictures is what
                       has no copy there yet

    A field with an empty value (artist:) matches entries that have one. A word must hold a \
    letter or a digit: a term of punctuation alone ('*', '-', ',') is a usage error (64), \
    never a match of everything; put globs in a field (name:'*'); so is an empty alternative \
    (kind:image, or ,kind:image). Words match whatever their case and accents (cafe finds \
    café, σαντορινη finds Σαντορίνη), and any word inside Chinese or Japanese text (京都 \
    finds 東京都庁: such text is indexed by each two characters in a row). The fields with a fixed \
    set of values take only those: \(fixedSets); another value \
    (kind:imag) is a usage error (64) that suggests the nearest.

    copies and copy-in compare contents as shelf dupes does: the files whose size another \
    shares are hashed (XXH3-128) unless the catalogue kept their hashes from an earlier \
    search, then kept for the next one; empty files have no copies; backup entries count, \
    by their decrypted content. The entries cannot be sorted by them. A copy-in FOLDER that \
    is neither a folder on disk nor one the catalogue holds files under (a typo) is a usage \
    error (64) naming it, never a query that every file matches.

    ls, stats, extract, play and dupes take the same terms. A term that names a field (root:/path, \
    path:'/x/*', -kind:image) is a query term everywhere, never a file name, whatever it \
    holds. A word that starts with - (-holiday) is an unknown option unless it follows --: \
    write shelf ls -- -holiday to list what does not mention holiday.

    Sizes take units (size>10M, size<=512K); durations take seconds, M:SS or units \
    (duration<3:00, duration>90s); times are dates in the local zone, as ls prints them \
    (mtime>2024-01-01, mtime:2024-05, mtime:2024-05-01T14) or relative to now (mtime:-7d.. for the last seven days, -12h, -2w, -30min, -1y). taken takes \
    the same dates, compared with the local time the camera or the video recorded \
    (taken:2024-05, taken:-30d..). Booleans \
    take yes or no (alpha:yes, cgbi:no). Bit rates take k and M (bitrate>256k, bitrate:1.4M).

    Fields: \(fieldList).

    Sort (--sort, repeatable) by any field, ascending or with :desc; a second --sort orders \
    entries that tie on the first (--sort artist --sort year:desc). Without --sort entries \
    list by path; with bare words, best first, by a score shelf computes alike in SQLite and \
    PostgreSQL catalogues: first the entries whose name or tags hold every word, then those \
    whose text holds them, then those found in their paths alone; within each, the shorter \
    text first (a text file's characters), then by path.

    Quote a term for the shell when it holds spaces or < and >: 'artist:The Beatles', \
    'size>10M'.
    """)
}

extension QueryTerms {
  /// The fields a query names, in table order, once each.
  private static var queriedFields: [FactField] { FactField.table.filter { !$0.queryNames.isEmpty } }

  /// The query names compared as `matching`, in table order.
  private static func names(_ matching: FactField.QueryMatching) -> [String] {
    queriedFields.filter { $0.queryMatching == matching }.flatMap(\.queryNames)
  }

  /// The lines of "How field:value matches" that list fields: names, globs, text, numbers, yes
  /// or no, each with how it matches.
  private static var matchingLists: String {
    let explained: [(String, [String], String)] = [
      (
        "names", names(.names),
        "the whole value, case-insensitive (ext:png is .png and .PNG, never .libpng16; ext:.png works too)"
      ),
      (
        "globs", names(.globs),
        "a shell glob over the raw bytes of the whole absolute path (path, root) or of the file name (name): * any run of characters (also /), ? one character, [abc] [a-z] [!a-z] a set, a backslash quotes the next character; case-insensitive unless the pattern has a capital letter (as fd's smart case): name:'img_*.png' finds IMG_1.PNG, name:'IMG_*' does not find img_1.png. With := the value is taken literally."
      ),
      (
        "text", names(.text),
        "the value anywhere in the field, case-insensitive (artist:beat finds The Beatles, camera:iphone)"
      ),
      ("numbers", names(.numbers), "equal, or a range"),
      ("yes or no", names(.yesOrNo), ""),
    ]
    return explained.map { label, fields, how in
      ManualColumns.entry(
        label, fields.joined(separator: ", ") + (how.isEmpty ? "" : ": " + how), labelWidth: 17, width: 88)
    }.joined(separator: "\n")
  }

  /// The fields with a closed set of values, each with its values.
  private static var fixedSets: String {
    let sets = queriedFields.compactMap { field in
      field.queryChoices.map { "\(field.queryNames[0]) (\($0.joined(separator: ", ")))" }
    }
    return sets.dropLast().joined(separator: ", ") + " and " + sets.last!
  }

  /// Every field, with what it is where its name does not say.
  private static var fieldList: String {
    let fields = queriedFields.compactMap(\.queryDescription)
    return fields.dropLast().joined(separator: ", ") + " and " + fields.last!
  }
}

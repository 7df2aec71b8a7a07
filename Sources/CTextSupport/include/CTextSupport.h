#ifndef CTEXT_SUPPORT_H
#define CTEXT_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* The running counts of a text as `wc` keeps them (see ShelfFacts' TextAnalyzer for the rules):
   characters, words, lines, and the three kinds of line ending, with the state a count carries
   from one character to the next. */
typedef struct {
  int64_t chars;
  int64_t words;
  int64_t lines;
  int64_t lf;
  int64_t crlf;
  int64_t cr;
  /* The last character was part of a word, was a carriage return, and the current line has
     something other than its ending. */
  uint8_t in_word;
  uint8_t after_cr;
  uint8_t line_has_content;
} shelf_text_counts;

/* Counts one character: a Unicode scalar value, or an undecodable byte's mark (above U+10FFFF). */
void shelf_count_character(shelf_text_counts *counts, uint32_t value);

/* Counts the ASCII bytes at the start of `bytes` (up to `count`) into `counts`, sixteen at a
   time where the machine has SSE2, and returns how many it counted: it stops at the first byte
   of 0x80 or more, which the caller decodes (UTF-8) and counts itself. */
size_t shelf_count_ascii(const uint8_t *bytes, size_t count, shelf_text_counts *counts);

/* How many bytes at the start of `bytes` (up to `count`) are plain text: printable ASCII
   (0x20–0x7E), tab, line feed and carriage return. Sixteen at a time where the machine has
   SSE2: what the text sniffer passes over before it looks at a byte closely. */
size_t shelf_plain_ascii_prefix(const uint8_t *bytes, size_t count);

/* The kinds of bytes in a text sample that decide its encoding: zero bytes by their offset
   modulo 4 (UTF-16 and UTF-32 without a mark), bytes of 0x80 or more, escapes (ISO-2022), and
   control characters text does not hold (all of C0 but bell, backspace, tab, line feed,
   vertical tab, form feed, carriage return, the DOS end-of-file mark and escape; and DEL). */
typedef struct {
  int64_t zeros[4];
  int64_t high_bytes;
  int64_t escapes;
  int64_t bad_controls;
  /* The shift characters of the 7-bit encodings of Unicode and GB2312: `+` (UTF-7) and `~` (HZ). */
  int64_t shift_marks;
} shelf_byte_census;

/* Adds the bytes of one segment (offsets counted from its start) to `census`, passing over
   plain text sixteen bytes at a time where the machine has SSE2. */
void shelf_take_census(const uint8_t *bytes, size_t count, shelf_byte_census *census);

/* Writes the distinct words of `text` (up to `count` bytes) into `out`, in the order of their
   first appearance, separated by single spaces, and returns how many bytes it wrote (at most
   `count`, so `out` needs `count` bytes). A word is a run of ASCII letters and digits and of
   bytes of 0x80 or more (every byte of a non-ASCII character). What the full-text index of a
   text is given: each word once. When the set of words cannot be allocated, every word is
   written, repeats included. */
size_t shelf_distinct_words(const uint8_t *text, size_t count, uint8_t *out);

#endif

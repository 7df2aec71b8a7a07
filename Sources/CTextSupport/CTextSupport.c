#include "CTextSupport.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* White space as `wc -w` separates words by in a UTF-8 locale (GNU coreutils 9.1): tab to
   carriage return, space, the no-break spaces U+00A0, U+2007, U+202F, U+2060, and U+1680,
   U+2000–U+200A, U+205F, U+3000. */
static inline int is_blank(uint32_t value) {
  if (value < 0x80) return value == 0x20 || (value >= 0x09 && value <= 0x0D);
  return value == 0xA0 || value == 0x1680 || (value >= 0x2000 && value <= 0x200A) || value == 0x202F ||
         value == 0x205F || value == 0x2060 || value == 0x3000;
}

/* One character, by the rules of TextAnalyzer's count: a line feed ends a line (after a
   carriage return, the two are one CRLF ending), a carriage return ends one, and white space
   ends a word. An undecodable byte's value (above U+10FFFF) is a character of a word. */
static inline void count_one(shelf_text_counts *c, uint32_t value) {
  c->chars += 1;
  if (value == 0x0A) {
    if (c->after_cr) {
      c->crlf += 1;
      c->cr -= 1;
    } else {
      c->lf += 1;
      c->lines += 1;
    }
    c->after_cr = 0;
    c->in_word = 0;
    c->line_has_content = 0;
  } else if (value == 0x0D) {
    c->cr += 1;
    c->lines += 1;
    c->after_cr = 1;
    c->in_word = 0;
    c->line_has_content = 0;
  } else {
    if (is_blank(value)) {
      c->in_word = 0;
    } else if (!c->in_word) {
      c->words += 1;
      c->in_word = 1;
    }
    c->after_cr = 0;
    c->line_has_content = 1;
  }
}

void shelf_count_character(shelf_text_counts *counts, uint32_t value) { count_one(counts, value); }

#if defined(__SSE2__)
/* Counts whole blocks of sixteen ASCII bytes without a carriage return, from `at`; returns
   where it stopped (a block it cannot take, or fewer than sixteen bytes left). */
static size_t count_blocks(const uint8_t *bytes, size_t count, size_t at, shelf_text_counts *c) {
  const __m128i lf = _mm_set1_epi8(0x0A);
  const __m128i cr = _mm_set1_epi8(0x0D);
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i below_tab = _mm_set1_epi8(0x08);
  const __m128i above_cr = _mm_set1_epi8(0x0E);
  while (count - at >= 16) {
    __m128i block = _mm_loadu_si128((const __m128i *)(bytes + at));
    /* A byte of 0x80 or more, or a carriage return (whose pairing with a line feed the simple
       path does not follow): this block goes one byte at a time. */
    if (_mm_movemask_epi8(block) != 0 || _mm_movemask_epi8(_mm_cmpeq_epi8(block, cr)) != 0) break;
    unsigned feeds = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(block, lf));
    /* White space ends words; line feeds (0x0A, within 0x09–0x0D) are among it. */
    __m128i blank = _mm_or_si128(
        _mm_cmpeq_epi8(block, space),
        _mm_and_si128(_mm_cmpgt_epi8(block, below_tab), _mm_cmplt_epi8(block, above_cr)));
    unsigned blanks = (unsigned)_mm_movemask_epi8(blank);
    /* A word starts at a character that is not blank after one that is (or after none). */
    unsigned before = ((blanks << 1) | (c->in_word ? 0u : 1u)) & 0xFFFFu;
    c->words += __builtin_popcount(~blanks & before & 0xFFFFu);
    c->in_word = (blanks & 0x8000u) == 0;
    int newlines = __builtin_popcount(feeds);
    if (c->after_cr && (feeds & 1u)) {
      /* The first byte ends a CRLF begun in the block before. */
      c->crlf += 1;
      c->cr -= 1;
      newlines -= 1;
    }
    c->lf += newlines;
    c->lines += newlines;
    c->after_cr = 0;
    c->chars += 16;
    if (feeds == 0) {
      c->line_has_content = 1;
    } else {
      /* Something after the last line feed in the block is the next line's content. */
      c->line_has_content = (31 - __builtin_clz(feeds)) < 15;
    }
    at += 16;
  }
  return at;
}
#endif

size_t shelf_count_ascii(const uint8_t *bytes, size_t count, shelf_text_counts *c) {
  size_t at = 0;
  for (;;) {
#if defined(__SSE2__)
    at = count_blocks(bytes, count, at, c);
#endif
    /* A block the fast path left (or the tail): one byte at a time, to its end. */
    size_t end = count - at < 16 ? count : at + 16;
    while (at < end) {
      if (bytes[at] >= 0x80) return at;
      count_one(c, bytes[at]);
      at += 1;
    }
    if (at == count) return at;
  }
}

static inline int is_plain(uint8_t byte) {
  return (byte >= 0x20 && byte < 0x7F) || byte == 0x09 || byte == 0x0A || byte == 0x0D;
}

size_t shelf_plain_ascii_prefix(const uint8_t *bytes, size_t count) {
  size_t at = 0;
#if defined(__SSE2__)
  const __m128i below_space = _mm_set1_epi8(0x1F);
  const __m128i delete = _mm_set1_epi8(0x7F);
  const __m128i tab = _mm_set1_epi8(0x09);
  const __m128i lf = _mm_set1_epi8(0x0A);
  const __m128i cr = _mm_set1_epi8(0x0D);
  while (count - at >= 16) {
    __m128i block = _mm_loadu_si128((const __m128i *)(bytes + at));
    /* Signed, bytes of 0x80 or more are below 0x20 too. */
    __m128i printable = _mm_andnot_si128(_mm_cmpeq_epi8(block, delete), _mm_cmpgt_epi8(block, below_space));
    __m128i blank = _mm_or_si128(
        _mm_cmpeq_epi8(block, tab), _mm_or_si128(_mm_cmpeq_epi8(block, lf), _mm_cmpeq_epi8(block, cr)));
    if (_mm_movemask_epi8(_mm_or_si128(printable, blank)) != 0xFFFF) break;
    at += 16;
  }
#endif
  while (at < count && is_plain(bytes[at])) at += 1;
  return at;
}

/* One byte into the census (offset `at` from the segment's start). */
static inline void census_one(shelf_byte_census *census, uint8_t byte, size_t at) {
  if (byte == '+' || byte == '~') census->shift_marks += 1;
  if (byte >= 0x20 && byte < 0x7F) return;
  if (byte >= 0x80) {
    census->high_bytes += 1;
  } else if (byte == 0) {
    census->zeros[at & 3] += 1;
  } else if (byte == 0x1B) {
    census->escapes += 1;
  } else if (!(byte == 0x07 || (byte >= 0x08 && byte <= 0x0D) || byte == 0x1A)) {
    census->bad_controls += 1;
  }
}

void shelf_take_census(const uint8_t *bytes, size_t count, shelf_byte_census *census) {
  size_t at = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i escape = _mm_set1_epi8(0x1B);
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i below_bell = _mm_set1_epi8(0x06);
  const __m128i above_cr = _mm_set1_epi8(0x0E);
  const __m128i end_of_file = _mm_set1_epi8(0x1A);
  const __m128i delete = _mm_set1_epi8(0x7F);
  const __m128i plus = _mm_set1_epi8('+');
  const __m128i tilde = _mm_set1_epi8('~');
  while (count - at >= 16) {
    __m128i block = _mm_loadu_si128((const __m128i *)(bytes + at));
    unsigned high = (unsigned)_mm_movemask_epi8(block);
    unsigned zeros = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(block, zero));
    unsigned escapes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(block, escape));
    /* C0 controls (signed: the high bytes are below zero, not among them) that text holds:
       zero (counted apart), bell to carriage return, the end-of-file mark and escape. */
    __m128i control = _mm_andnot_si128(_mm_cmplt_epi8(block, zero), _mm_cmplt_epi8(block, space));
    __m128i allowed = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(block, zero), _mm_cmpeq_epi8(block, escape)),
        _mm_or_si128(
            _mm_and_si128(_mm_cmpgt_epi8(block, below_bell), _mm_cmplt_epi8(block, above_cr)),
            _mm_cmpeq_epi8(block, end_of_file)));
    __m128i bad = _mm_or_si128(_mm_andnot_si128(allowed, control), _mm_cmpeq_epi8(block, delete));
    census->high_bytes += __builtin_popcount(high);
    census->escapes += __builtin_popcount(escapes);
    census->bad_controls += __builtin_popcount((unsigned)_mm_movemask_epi8(bad));
    census->shift_marks += __builtin_popcount(
        (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, plus), _mm_cmpeq_epi8(block, tilde))));
    if (zeros) {
      /* Bit i is offset at + i: the bits of offsets k modulo 4. */
      for (unsigned k = 0; k < 4; k++) {
        unsigned pattern = 0x1111u << ((k - (unsigned)at) & 3u);
        census->zeros[k] += __builtin_popcount(zeros & pattern & 0xFFFFu);
      }
    }
    at += 16;
  }
#endif
  for (; at < count; at++) census_one(census, bytes[at], at);
}

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

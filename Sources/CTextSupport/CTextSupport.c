#include "CTextSupport.h"

#include <stdlib.h>
#include <string.h>

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

/* 1 for ASCII letters and digits and every byte of 0x80 or more. */
static const uint8_t word_bytes[256] = {
  ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
  ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
  ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
  ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
  ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
  ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
  ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
  [0x80 ... 0xFF] = 1,
};

/* One word of the set: its hash, its first eight bytes (zero-padded), where it starts in the
   text and its length (0: a free slot). */
typedef struct {
  uint64_t hash;
  uint64_t head;
  uint32_t start;
  uint32_t length;
} word_slot;

/* The `available` (at most 8) bytes at `at`, zero-padded; read as one load when eight bytes
   lie within the text (`left_in_text` from `at`). */
static inline uint64_t load_word_bytes(const uint8_t *at, size_t available, size_t left_in_text) {
  uint64_t value = 0;
  if (left_in_text >= 8) {
    memcpy(&value, at, 8);
    if (available < 8) value &= (UINT64_C(1) << (available * 8)) - 1;
  } else {
    for (size_t i = 0; i < available; i++) value |= (uint64_t)at[i] << (i * 8);
  }
  return value;
}

static inline uint64_t mix(uint64_t hash, uint64_t chunk) {
  hash = (hash ^ chunk) * 0xff51afd7ed558ccdULL;
  return hash ^ (hash >> 32);
}

typedef struct {
  word_slot *slots;
  size_t capacity;
  size_t used;
} word_set;

/* Adds the word at `start` of `length` bytes of the `count` of `text`; 1 when it was not in
   the set. Words of up to eight bytes are compared by their head alone. */
static int add_word(word_set *set, const uint8_t *text, size_t count, size_t start, size_t length) {
  if (!set->slots) return 1;
  uint64_t head = load_word_bytes(text + start, length < 8 ? length : 8, count - start);
  uint64_t hash = mix(0x9E3779B97F4A7C15ULL ^ length, head);
  for (size_t at = 8; at < length; at += 8) {
    size_t left = length - at;
    hash = mix(hash, load_word_bytes(text + start + at, left < 8 ? left : 8, count - start - at));
  }
  size_t mask = set->capacity - 1, slot = (size_t)hash & mask;
  while (set->slots[slot].length) {
    word_slot *seen = &set->slots[slot];
    if (seen->hash == hash && seen->head == head && seen->length == length &&
        (length <= 8 || memcmp(text + seen->start + 8, text + start + 8, length - 8) == 0))
      return 0;
    slot = (slot + 1) & mask;
  }
  set->slots[slot] = (word_slot){hash, head, (uint32_t)start, (uint32_t)length};
  set->used += 1;
  if (set->used * 2 > set->capacity) {
    size_t capacity = set->capacity * 2;
    word_slot *grown = calloc(capacity, sizeof *grown);
    if (grown) {
      for (size_t old = 0; old < set->capacity; old++) {
        if (!set->slots[old].length) continue;
        size_t free_slot = (size_t)set->slots[old].hash & (capacity - 1);
        while (grown[free_slot].length) free_slot = (free_slot + 1) & (capacity - 1);
        grown[free_slot] = set->slots[old];
      }
    }
    free(set->slots);
    set->slots = grown;
    set->capacity = capacity;
  }
  return 1;
}

#if defined(__SSE2__)
/* Bit i set when byte i of the 16 at `bytes` is a word byte. */
static inline uint32_t word_mask16(const uint8_t *bytes) {
  __m128i v = _mm_loadu_si128((const __m128i *)bytes);
  /* Signed compares: bytes of 0x80 or more are negative. */
  __m128i high = _mm_cmplt_epi8(v, _mm_setzero_si128());
  __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
  __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
  __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
  return (uint32_t)_mm_movemask_epi8(_mm_or_si128(high, _mm_or_si128(digit, letter)));
}
#endif

/* Bit i set when byte i of the `count` (at most 64) at `bytes` is a word byte. */
static inline uint64_t word_mask(const uint8_t *bytes, size_t count) {
#if defined(__SSE2__)
  if (count == 64) {
    return (uint64_t)word_mask16(bytes) | (uint64_t)word_mask16(bytes + 16) << 16 |
           (uint64_t)word_mask16(bytes + 32) << 32 | (uint64_t)word_mask16(bytes + 48) << 48;
  }
#endif
  uint64_t mask = 0;
  for (size_t i = 0; i < count; i++) mask |= (uint64_t)word_bytes[bytes[i]] << i;
  return mask;
}

/* Word bytes are classified 64 at a time into a bit mask, and words are found at the mask's
   edges: no branch per byte (a text of words is a branch every five bytes or so). */
size_t shelf_distinct_words(const uint8_t *text, size_t count, uint8_t *out) {
  word_set set = {count <= UINT32_MAX ? calloc(1024, sizeof(word_slot)) : NULL, 1024, 0};
  size_t written = 0, start = 0;
  uint64_t previous = 0; /* whether the byte before the block was a word byte */
  for (size_t base = 0; base < count; base += 64) {
    size_t block = count - base < 64 ? count - base : 64;
    uint64_t mask = word_mask(text + base, block);
    uint64_t edges = mask ^ (mask << 1 | previous);
    if (block < 64) edges &= (UINT64_C(1) << block) - 1;
    previous = mask >> 63;
    while (edges) {
      size_t bit = (size_t)__builtin_ctzll(edges);
      edges &= edges - 1;
      if (mask >> bit & 1) {
        start = base + bit;
      } else {
        size_t length = base + bit - start;
        if (add_word(&set, text, count, start, length)) {
          if (written) out[written++] = 0x20;
          memcpy(out + written, text + start, length);
          written += length;
        }
      }
    }
    if (block < 64 && (mask >> (block - 1) & 1)) previous = 1;
  }
  if (count && word_bytes[text[count - 1]]) {
    size_t length = count - start;
    if (add_word(&set, text, count, start, length)) {
      if (written) out[written++] = 0x20;
      memcpy(out + written, text + start, length);
      written += length;
    }
  }
  free(set.slots);
  return written;
}

// xxHash 0.8 (Debian libxxhash-dev): XXH3-128 for file contents, XXH3-64 for head/tail samples.
#include <xxhash.h>

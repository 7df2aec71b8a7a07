#include <zopfli/zopfli.h>

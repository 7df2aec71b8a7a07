#include <stdint.h>
#include <chromaprint.h>

#define QOI_IMPLEMENTATION
#define QOI_NO_STDIO
#include "CQOI.h"

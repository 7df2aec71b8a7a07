#include <libswscale/swscale.h>

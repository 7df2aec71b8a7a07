// Header-only target: LLVMFuzzerRunDriver comes from libFuzzer (scripts/fuzz.sh links it).
#include "CFuzzDriver.h"

#include <stdio.h>
#include <icns.h>

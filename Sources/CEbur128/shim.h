// libebur128 1.2 (Debian libebur128-dev): EBU R128 loudness and true peak for `shelf gain`.
#include <ebur128.h>

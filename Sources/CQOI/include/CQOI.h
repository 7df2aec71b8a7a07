#ifndef CQOI_H
#define CQOI_H

/* The reference QOI decoder (Debian libqoi-dev: one header, compiled once in CQOI.c). */
#include <qoi.h>

#endif

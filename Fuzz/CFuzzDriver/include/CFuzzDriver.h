#ifndef SHELF_CFUZZDRIVER_H
#define SHELF_CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with a `main` of their own (compiler-rt's
/// FuzzerDriver.cpp, linked from libclang_rt.fuzzer_no_main): SwiftPM gives every executable
/// target a `main` of its own, so shelf-fuzz starts libFuzzer from there.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif

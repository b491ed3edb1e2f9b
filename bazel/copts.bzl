"""Compile options shared by every blkperf package."""

BLKPERF_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
]

BLKPERF_TEST_COPTS = BLKPERF_COPTS

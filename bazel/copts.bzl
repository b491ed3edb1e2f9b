"""Compile options shared by every blkperf package."""

BLKPERF_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
]

BLKPERF_TEST_COPTS = BLKPERF_COPTS

# The daemon runs as root: every symbol is bound at load (full RELRO: no
# writable GOT, no lazy binding), which also keeps the dynamic linker off a
# workload's first turn.
DAEMON_LINKOPTS = [
    "-Wl,-z,relro",
    "-Wl,-z,now",
]

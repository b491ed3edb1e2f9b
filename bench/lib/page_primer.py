#!/usr/bin/env python3
"""Takes the page allocator's leftover fragments before a benchmark's arms
set up (bench/fidelity.sh --primer).

  page_primer.py MIB     # faults in MIB MiB of anonymous memory, prints
                         # "ready", holds it until SIGTERM or SIGINT

When processes exit, their pages go back to the buddy allocator; those
whose buddies are still in use stay behind as single pages and small
blocks, and an order-0 allocation takes the smallest free block first. So
the first arm to fault in its buffers after the last round's arms exited
gets those fragments, scattered over memory, and the arms after it get
pages split off large blocks, one after another. At 1 MiB on 4 KiB pages a
plain (not registered) buffer's pages are pinned and unpinned on every
I/O, and how contiguous they are moves the arm's IOPS by up to a fifth
(bench/RESULTS.md). Run on the arms' CPU (its per-CPU page lists are
drained too) and held while the arms run, the primer takes the fragments
for itself, and every arm's buffers come from large blocks.
"""
import mmap
import signal
import sys


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) <= 0:
        sys.exit("usage: page_primer.py MIB (a positive number of MiB)")
    pages = int(sys.argv[1]) * 256
    # Block the signals first: one that comes while faulting in still ends
    # the wait below at once.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    memory = mmap.mmap(-1, pages * 4096,
                       flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory.madvise(mmap.MADV_NOHUGEPAGE)  # single pages, as the arms take
    for page in range(pages):
        memory[page * 4096] = 1
    print("ready", flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})


if __name__ == "__main__":
    main()

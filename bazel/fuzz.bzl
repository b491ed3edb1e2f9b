"""blkperf_fuzzer: a libFuzzer target and its corpus regression test."""

load("//bazel:copts.bzl", "BLKPERF_TEST_COPTS")

def blkperf_fuzzer(name, srcs, deps, corpus, size = "small"):
    """Declares `name` (a fuzzer binary) and `name`_test (a corpus replay).

    Under --config=fuzz `name` is a libFuzzer binary (clang,
    -fsanitize=fuzzer,address,undefined); otherwise it replays the files or
    directories given as arguments (bazel/fuzz_replay_main.cc), which is
    what `name`_test does with the checked-in corpus under every build.

    Args:
      name: the fuzzer, by convention "<thing>_fuzzer".
      srcs: the source defining LLVMFuzzerTestOneInput.
      deps: what it links.
      corpus: the seed corpus directory beside the source, e.g.
        "split_strategy_fuzzer_corpus".
      size: of the replay test.
    """
    corpus_files = native.glob([corpus + "/*"])
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        copts = BLKPERF_TEST_COPTS,
        linkopts = select({
            "//bazel:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//bazel:fuzzing": [],
            "//conditions:default": ["//bazel:fuzz_replay_main"],
        }),
    )
    native.cc_test(
        name = name + "_test",
        size = size,
        srcs = srcs,
        copts = BLKPERF_TEST_COPTS,
        args = ["$(location %s)" % f for f in corpus_files],
        data = corpus_files,
        deps = deps + ["//bazel:fuzz_replay_main"],
    )

// A main() for libFuzzer targets under the normal (gcc) build: replays every
// file of the corpus directories (or single files) named on the command line
// through LLVMFuzzerTestOneInput, once each, in name order. With
// --config=fuzz the same target links libFuzzer's own main instead (see
// bazel/fuzz.bzl).
//
//   bazel-bin/model/split_strategy_fuzzer daemon/engine/x_corpus
//   bazel-bin/model/split_strategy_fuzzer crash-1234
//
// Exits 1 when an argument cannot be read or when no input was found (a
// regression test that replays nothing proves nothing); a bug in the target
// aborts (sanitizers, CHECKs) as it would under libFuzzer.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));

namespace {

// The files `arg` names: itself, or a directory's regular files sorted.
bool CollectInputs(const std::string& arg, std::vector<std::string>* out) {
  std::error_code error;
  if (!std::filesystem::is_directory(arg, error)) {
    out->push_back(arg);
    return true;
  }
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(arg, error)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  if (error) {
    std::fprintf(stderr, "replay: cannot list %s: %s\n", arg.c_str(),
                 error.message().c_str());
    return false;
  }
  std::sort(files.begin(), files.end());
  out->insert(out->end(), files.begin(), files.end());
  return true;
}

bool ReadFile(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes->assign(std::istreambuf_iterator<char>(in),
                std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!CollectInputs(argv[i], &inputs)) return 1;
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs (give corpus dirs or files)\n");
    return 1;
  }
  for (const std::string& path : inputs) {
    std::string bytes;
    if (!ReadFile(path, &bytes)) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
  }
  std::fprintf(stderr, "replay: %zu inputs ran\n", inputs.size());
  return 0;
}

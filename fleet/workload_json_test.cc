#include "fleet/workload_json.h"

#include <string>
#include <vector>

#include "absl/random/random.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "wire/message_json.h"

namespace blkperf::fleet {
namespace {

// A workload with nested messages, repeated fields, enums and strings
// holding JSON's own punctuation.
v1::Workload Sample(int k) {
  v1::Workload w;
  w.set_workload_id("w" + std::to_string(k));
  w.set_run_id("run-1");
  w.set_state(v1::WORKLOAD_STATE_FINISHED);
  w.set_end_reason(k % 2 == 0 ? "quote \" brace } bracket ] backslash \\ {["
                              : "tab\tnewline\n\x01 unicode \xc3\xa9");
  w.mutable_spec()->set_block_size(4096 * (k + 1));
  w.mutable_spec()->mutable_runtime()->set_seconds(k);
  v1::ThreadStats* total = w.mutable_snapshot()->mutable_total();
  total->set_ios(1000 + k);
  total->set_iops(123.5 * k);
  for (int b = 0; b < 3; ++b) {
    v1::HistogramBucket* bucket = total->mutable_histogram()->add_buckets();
    bucket->set_index(400 + b + k);
    bucket->set_count(10 * b + k);
  }
  w.mutable_snapshot()->add_notes("note {with} [brackets]");
  return w;
}

TEST(WorkloadJsonTest, EachWorkloadPrintsAsMessageJsonDoes) {
  std::vector<v1::Workload> workloads;
  for (int k = 0; k < 5; ++k) workloads.push_back(Sample(k));
  workloads.push_back(v1::Workload());  // every field at its default
  std::vector<const v1::Workload*> pointers;
  for (const v1::Workload& w : workloads) pointers.push_back(&w);
  const std::vector<std::string> json = WorkloadsApiJson(pointers);
  ASSERT_EQ(json.size(), workloads.size());
  for (size_t i = 0; i < workloads.size(); ++i) {
    EXPECT_EQ(json[i], MessageJson(workloads[i], JsonLayout::kOneLine)) << i;
  }
}

// Fills `m` at random, `depth` levels of messages deep: each field set or
// not, repeated ones with 0-3 elements, integers of every magnitude and
// sign, doubles that need 15 or 17 digits, printable ASCII strings with
// JSON's own punctuation, durations and timestamps with 0-9 fraction
// digits.
class RandomFill {
 public:
  // `rare`: strings may hold '<' and '>', and maps are filled (both left
  // to protobuf's printer).
  RandomFill(uint64_t seed, bool rare)
      : gen_(std::seed_seq{seed}), rare_(rare) {}

  void Message(google::protobuf::Message& m, int depth) {
    const google::protobuf::Descriptor* d = m.GetDescriptor();
    const google::protobuf::Reflection* r = m.GetReflection();
    if (d->full_name() == "google.protobuf.Duration") {
      const int64_t s = Pick({0, 1, 59, 3600, 315576000000}) * Sign();
      r->SetInt64(&m, d->field(0), s);
      const int32_t nanos = static_cast<int32_t>(
          Pick({0, 5000000, 250000, 123456789, 999999999}));
      r->SetInt32(&m, d->field(1), s < 0 ? -nanos : nanos);
      return;
    }
    if (d->full_name() == "google.protobuf.Timestamp") {
      r->SetInt64(&m, d->field(0), Pick({0, 1, 1765000000, 253402300799}));
      r->SetInt32(&m, d->field(1),
                  static_cast<int32_t>(Pick({0, 1000000, 1000, 7})));
      return;
    }
    for (int i = 0; i < d->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* f = d->field(i);
      if (absl::Bernoulli(gen_, 0.4) || (f->is_map() && !rare_)) continue;
      using F = google::protobuf::FieldDescriptor;
      if (f->cpp_type() == F::CPPTYPE_MESSAGE && depth == 0) continue;
      const int n = f->is_repeated() ? absl::Uniform(gen_, 0, 4) : 1;
      for (int k = 0; k < n; ++k) Value(m, r, f, depth);
    }
  }

 private:
  int64_t Sign() { return absl::Bernoulli(gen_, 0.3) ? -1 : 1; }
  int64_t Pick(std::initializer_list<int64_t> values) {
    return *(values.begin() + absl::Uniform<size_t>(gen_, 0, values.size()));
  }
  double Double() {
    switch (absl::Uniform(gen_, 0, 6)) {
      case 0:
        return 0;
      case 1:
        return 0.1 * static_cast<double>(absl::Uniform(gen_, -100, 100));
      case 2:
        return 1.0 / 3;
      case 3:
        return absl::Uniform(gen_, -1e20, 1e20);
      case 4:
        return absl::Uniform(gen_, 0.0, 1e-6);
      default:
        return static_cast<double>(
            absl::Uniform<int64_t>(gen_, 0, int64_t{1} << 60));
    }
  }
  std::string String() {
    std::string s;
    const int n = absl::Uniform(gen_, 0, 12);
    while (static_cast<int>(s.size()) < n) {
      const auto c = static_cast<char>(absl::Uniform(gen_, 0x20, 0x7f));
      if (rare_ || (c != '<' && c != '>')) s += c;
    }
    return s;
  }
  void Value(google::protobuf::Message& m,
             const google::protobuf::Reflection* r,
             const google::protobuf::FieldDescriptor* f, int depth) {
    using F = google::protobuf::FieldDescriptor;
    const bool rep = f->is_repeated();
    const int64_t big = Pick({0, 1, 127, 65535, 2147483647}) * Sign();
    switch (f->cpp_type()) {
      case F::CPPTYPE_INT32: {
        const auto v = static_cast<int32_t>(big);
        rep ? r->AddInt32(&m, f, v) : r->SetInt32(&m, f, v);
        break;
      }
      case F::CPPTYPE_UINT32: {
        const auto v = static_cast<uint32_t>(Pick({0, 7, 4096, 4294967295}));
        rep ? r->AddUInt32(&m, f, v) : r->SetUInt32(&m, f, v);
        break;
      }
      case F::CPPTYPE_INT64: {
        const int64_t v = Pick({0, 3, int64_t{1} << 40, INT64_MAX}) * Sign();
        rep ? r->AddInt64(&m, f, v) : r->SetInt64(&m, f, v);
        break;
      }
      case F::CPPTYPE_UINT64: {
        const auto v = static_cast<uint64_t>(Pick({0, 9, int64_t{1} << 50})) +
                       (absl::Bernoulli(gen_, 0.2) ? UINT64_MAX / 2 + 7 : 0);
        rep ? r->AddUInt64(&m, f, v) : r->SetUInt64(&m, f, v);
        break;
      }
      case F::CPPTYPE_BOOL: {
        const bool v = absl::Bernoulli(gen_, 0.5);
        rep ? r->AddBool(&m, f, v) : r->SetBool(&m, f, v);
        break;
      }
      case F::CPPTYPE_DOUBLE: {
        const double v = Double();
        rep ? r->AddDouble(&m, f, v) : r->SetDouble(&m, f, v);
        break;
      }
      case F::CPPTYPE_FLOAT: {
        const auto v = static_cast<float>(Double());
        rep ? r->AddFloat(&m, f, v) : r->SetFloat(&m, f, v);
        break;
      }
      case F::CPPTYPE_ENUM: {
        const google::protobuf::EnumDescriptor* e = f->enum_type();
        const int v =
            e->value(absl::Uniform(gen_, 0, e->value_count()))->number();
        rep ? r->AddEnumValue(&m, f, v) : r->SetEnumValue(&m, f, v);
        break;
      }
      case F::CPPTYPE_STRING: {
        const std::string v = String();
        rep ? r->AddString(&m, f, v) : r->SetString(&m, f, v);
        break;
      }
      case F::CPPTYPE_MESSAGE:
        Message(rep ? *r->AddMessage(&m, f) : *r->MutableMessage(&m, f),
                depth - 1);
        break;
    }
  }

  absl::BitGen gen_;
  const bool rare_;
};

TEST(WorkloadJsonTest, TheDirectPrinterPrintsAsProtobufDoesOnRandomWorkloads) {
  int direct = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    v1::Workload w;
    RandomFill(seed, seed % 10 == 0).Message(w, 5);
    const std::string expected = MessageJson(w, JsonLayout::kOneLine);
    std::string json;
    if (DirectApiJson(w, json)) {
      ++direct;
      ASSERT_EQ(json, expected) << "seed " << seed;
    } else {
      EXPECT_TRUE(json.empty());
    }
    std::vector<std::string> batch = WorkloadsApiJson({&w});
    ASSERT_EQ(batch.size(), 1u);
    EXPECT_EQ(batch[0], expected) << "seed " << seed;
  }
  // Every tenth workload may hold a '<', a '>' or a map.
  EXPECT_GE(direct, 270);
}

TEST(WorkloadJsonTest, AFleetHostsWorkloadIsPrintedDirectly) {
  for (int k = 0; k < 5; k += 2) {
    v1::Workload w = Sample(k);
    std::string json;
    ASSERT_TRUE(DirectApiJson(w, json)) << k;
    EXPECT_EQ(json, MessageJson(w, JsonLayout::kOneLine));
  }
  // A byte outside printable ASCII is left to protobuf's printer.
  std::string json;
  EXPECT_FALSE(DirectApiJson(Sample(1), json));
  EXPECT_TRUE(json.empty());
}

TEST(WorkloadJsonTest, NoWorkloadsNoText) {
  EXPECT_TRUE(WorkloadsApiJson({}).empty());
}

}  // namespace
}  // namespace blkperf::fleet

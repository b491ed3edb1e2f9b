#include "wire/steady_state_convert.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_macros.h"

namespace blkperf {
namespace {

void ToProto(absl::Duration value, google::protobuf::Duration* proto) {
  const int64_t nanos = absl::ToInt64Nanoseconds(value);
  proto->set_seconds(nanos / 1000000000);
  proto->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

absl::Duration FromProto(const google::protobuf::Duration& proto) {
  return absl::Seconds(proto.seconds()) + absl::Nanoseconds(proto.nanos());
}

// A request's duration: positive and within a day (windows and checks
// longer than any runtime are refused later, naming runtime).
absl::StatusOr<absl::Duration> PositiveDuration(
    const google::protobuf::Duration& proto, absl::string_view field) {
  if (proto.seconds() < 0 || proto.nanos() < 0 || proto.nanos() > 999999999 ||
      proto.seconds() > 86400 * 366) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " {seconds: ", proto.seconds(),
                     ", nanos: ", proto.nanos(), "} is not a valid duration"));
  }
  const absl::Duration value = FromProto(proto);
  if (value <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(field, " must be > 0"));
  }
  return value;
}

void WindowToProto(const SteadyWindowFigures& f, v1::SteadyStateWindow* p) {
  p->set_samples(f.samples);
  p->set_mean(f.mean);
  p->set_min(f.min);
  p->set_max(f.max);
  p->set_deviation(f.deviation);
  p->set_slope_per_second(f.slope);
  p->set_value(f.value);
  p->set_limit(f.limit);
  p->set_met(f.met);
}

SteadyWindowFigures WindowFromProto(const v1::SteadyStateWindow& p) {
  return {.samples = p.samples(),
          .mean = p.mean(),
          .min = p.min(),
          .max = p.max(),
          .deviation = p.deviation(),
          .slope = p.slope_per_second(),
          .value = p.value(),
          .limit = p.limit(),
          .met = p.met()};
}

}  // namespace

absl::Status SteadyStateSpecFromProto(const v1::SteadyStateSpec& proto,
                                      SteadyStateSpec* spec) {
  if (proto.criterion().empty()) {
    return absl::InvalidArgumentError(
        "spec.steady_state.criterion is empty: give METRIC:LIMIT, e.g. "
        "iops:5%");
  }
  spec->enabled = true;
  BLKPERF_ASSIGN_OR_RETURN(
      spec->criterion,
      ParseSteadyStateCriterion(proto.criterion(),
                                "spec.steady_state.criterion"));
  if (proto.has_window()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->window,
        PositiveDuration(proto.window(), "spec.steady_state.window"));
  }
  if (proto.has_check()) {
    BLKPERF_ASSIGN_OR_RETURN(
        spec->check, PositiveDuration(proto.check(), "spec.steady_state.check"));
  }
  switch (proto.mode()) {
    case v1::STEADY_STATE_MODE_UNSPECIFIED:
    case v1::STEADY_STATE_MODE_STOP:
      spec->mode = SteadyStateMode::kStop;
      break;
    case v1::STEADY_STATE_MODE_GATE:
      spec->mode = SteadyStateMode::kGate;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("spec.steady_state.mode ", static_cast<int>(proto.mode()),
                       " is not a SteadyStateMode"));
  }
  return absl::OkStatus();
}

void SteadyStateSpecToProto(const SteadyStateSpec& spec,
                            v1::SteadyStateSpec* proto) {
  proto->set_criterion(SteadyStateCriterionName(spec.criterion));
  ToProto(spec.window, proto->mutable_window());
  if (spec.check > absl::ZeroDuration()) {
    ToProto(spec.check, proto->mutable_check());
  }
  proto->set_mode(spec.mode == SteadyStateMode::kGate
                      ? v1::STEADY_STATE_MODE_GATE
                      : v1::STEADY_STATE_MODE_STOP);
}

void SteadyStateResultToProto(const SteadyStateResult& r,
                              v1::SteadyStateResult* proto) {
  proto->set_enabled(r.enabled);
  if (!r.enabled) return;
  proto->set_criterion(r.criterion);
  proto->set_mode(r.mode);
  ToProto(r.window, proto->mutable_window());
  ToProto(r.check, proto->mutable_check());
  proto->set_checks(r.checks);
  proto->set_attained(r.attained);
  ToProto(r.attained_at, proto->mutable_attained_at());
  WindowToProto(r.figures, proto->mutable_window_figures());
  proto->set_left(r.left);
  ToProto(r.left_at, proto->mutable_left_at());
  WindowToProto(r.left_figures, proto->mutable_left_figures());
  proto->set_warning(r.warning);
}

SteadyStateResult SteadyStateResultFromProto(
    const v1::SteadyStateResult& proto) {
  SteadyStateResult r;
  r.enabled = proto.enabled();
  if (!r.enabled) return r;
  r.criterion = proto.criterion();
  r.mode = proto.mode();
  r.window = FromProto(proto.window());
  r.check = FromProto(proto.check());
  r.checks = proto.checks();
  r.attained = proto.attained();
  r.attained_at = FromProto(proto.attained_at());
  r.figures = WindowFromProto(proto.window_figures());
  r.left = proto.left();
  r.left_at = FromProto(proto.left_at());
  r.left_figures = WindowFromProto(proto.left_figures());
  r.warning = proto.warning();
  return r;
}

}  // namespace blkperf

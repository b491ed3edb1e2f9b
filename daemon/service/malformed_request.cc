#include "daemon/service/malformed_request.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"

namespace blkperf {
namespace {

using grpc::experimental::InterceptionHookPoints;

class MalformedRequestInterceptor final
    : public grpc::experimental::Interceptor {
 public:
  explicit MalformedRequestInterceptor(grpc::experimental::ServerRpcInfo* info)
      : info_(info) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // One request message per call (unary, server streaming): a null one
    // means the bytes did not parse. (In a client stream, null also marks
    // the end of the stream.)
    const bool single_request =
        info_->type() == grpc::experimental::ServerRpcInfo::Type::UNARY ||
        info_->type() ==
            grpc::experimental::ServerRpcInfo::Type::SERVER_STREAMING;
    if (single_request &&
        methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr) {
      malformed_ = true;
    }
    if (malformed_ && methods->QueryInterceptionHookPoint(
                          InterceptionHookPoints::PRE_SEND_STATUS)) {
      methods->ModifySendStatus(grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("request: the bytes sent to ",
                       BoundedText(info_->method() != nullptr ? info_->method()
                                                              : ""),
                       " are not a valid request message of its type (see "
                       "proto/blkperf.proto)")));
    }
    methods->Proceed();
  }

 private:
  grpc::experimental::ServerRpcInfo* const info_;
  bool malformed_ = false;
};

class Factory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new MalformedRequestInterceptor(info);
  }
};

}  // namespace

std::vector<
    std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
MalformedRequestInterceptors() {
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      out;
  out.push_back(std::make_unique<Factory>());
  return out;
}

}  // namespace blkperf

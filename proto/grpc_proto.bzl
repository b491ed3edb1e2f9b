"""grpc_cc_proto: C++ messages and gRPC stubs from one .proto via protoc."""

def grpc_cc_proto(name, copts = [], visibility = None):
    """Generates <name>.pb.{h,cc} and <name>.grpc.pb.{h,cc} from <name>.proto.

    Defines:
      :<name>_cc_grpc        cc_library with the messages and the stubs; include
                             "proto/<name>.pb.h" / "proto/<name>.grpc.pb.h".
      :<name>_descriptor_set <name>.desc, a FileDescriptorSet including imports.

    Args:
      name: the .proto's base name in this package.
      copts: extra compile options for the generated code.
      visibility: visibility of both targets.
    """
    src = name + ".proto"
    outs = [
        name + ".pb.h",
        name + ".pb.cc",
        name + ".grpc.pb.h",
        name + ".grpc.pb.cc",
    ]
    native.genrule(
        name = name + "_codegen",
        srcs = [src],
        outs = outs,
        cmd = ("protoc -I. --cpp_out=$(GENDIR) --grpc_out=$(GENDIR) " +
               "--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin " +
               "$(location " + src + ")"),
        message = "protoc " + src,
    )
    native.genrule(
        name = name + "_descriptor_set",
        srcs = [src],
        outs = [name + ".desc"],
        cmd = ("protoc -I. --include_imports --include_source_info " +
               "--descriptor_set_out=$@ $(location " + src + ")"),
        visibility = visibility,
    )
    native.cc_library(
        name = name + "_cc_grpc",
        srcs = [name + ".pb.cc", name + ".grpc.pb.cc"],
        hdrs = [name + ".pb.h", name + ".grpc.pb.h"],
        # Generated code: unused-parameter noise from protoc's output is not ours.
        copts = [c for c in copts if c not in ["-Wextra"]],
        visibility = visibility,
        deps = [
            "//third_party:grpc",
            "//third_party:protobuf",
        ],
    )

// A FUSE file system with one file, /data, whose reads can be made to stop
// completing: the device that stalls in the engine's stall test.
//
//   stall_fuse_server MOUNTPOINT SIZE_BYTES
//   kill -USR1 <pid>   # from now on, reads are never answered
//   kill -TERM <pid>   # unmount and exit; the kernel fails pending reads
//
// Reads return zeros until SIGUSR1. The file is opened with direct_io, so
// every read reaches this server (no page cache). Test-only.
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fuse3/fuse_lowlevel.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <vector>

namespace {

constexpr fuse_ino_t kDataIno = 2;
constexpr char kDataName[] = "data";
uint64_t g_size = 0;
volatile sig_atomic_t g_stalled = 0;

void OnUsr1(int) { g_stalled = 1; }

void Attributes(fuse_ino_t ino, struct stat* st) {
  memset(st, 0, sizeof(*st));
  st->st_ino = ino;
  if (ino == FUSE_ROOT_ID) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
  } else {
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = static_cast<off_t>(g_size);
    st->st_blksize = 4096;
  }
}

void Lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (parent != FUSE_ROOT_ID || strcmp(name, kDataName) != 0) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  fuse_entry_param e;
  memset(&e, 0, sizeof(e));
  e.ino = kDataIno;
  Attributes(kDataIno, &e.attr);
  fuse_reply_entry(req, &e);
}

void GetAttr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  if (ino != FUSE_ROOT_ID && ino != kDataIno) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct stat st;
  Attributes(ino, &st);
  fuse_reply_attr(req, &st, 0);
}

void Open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (ino != kDataIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  fi->direct_io = 1;
  fuse_reply_open(req, fi);
}

void Read(fuse_req_t req, fuse_ino_t, size_t size, off_t offset,
          fuse_file_info*) {
  if (g_stalled) return;  // never answered: the I/O stays outstanding
  static std::vector<char> zeros;
  if (static_cast<uint64_t>(offset) >= g_size) {
    fuse_reply_buf(req, nullptr, 0);
    return;
  }
  size = static_cast<size_t>(
      std::min<uint64_t>(size, g_size - static_cast<uint64_t>(offset)));
  if (zeros.size() < size) zeros.resize(size);
  fuse_reply_buf(req, zeros.data(), size);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MOUNTPOINT SIZE_BYTES\n", argv[0]);
    return 2;
  }
  g_size = strtoull(argv[2], nullptr, 10);
  signal(SIGUSR1, OnUsr1);
  fuse_lowlevel_ops ops;
  memset(&ops, 0, sizeof(ops));
  ops.lookup = Lookup;
  ops.getattr = GetAttr;
  ops.open = Open;
  ops.read = Read;
  char* fuse_argv[] = {argv[0], nullptr};
  fuse_args args = FUSE_ARGS_INIT(1, fuse_argv);
  fuse_session* se = fuse_session_new(&args, &ops, sizeof(ops), nullptr);
  // fuse_session_new may grow `args`; free them on every way out.
  int ret = 1;
  if (se != nullptr) {
    if (fuse_set_signal_handlers(se) == 0) {
      if (fuse_session_mount(se, argv[1]) == 0) {
        ret = fuse_session_loop(se);
        fuse_session_unmount(se);
      }
      fuse_remove_signal_handlers(se);
    }
    fuse_session_destroy(se);
  }
  fuse_opt_free_args(&args);
  return ret == 0 ? 0 : 1;
}

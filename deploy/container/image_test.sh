#!/bin/bash
# The container image end to end, without a container engine (root):
#  1. build_image.py builds it twice from the same binaries: the same
#     manifest digest (reproducible);
#  2. the archive is a valid OCI layout and docker-save archive: index ->
#     manifest -> config and layer, digests and sizes match, the config's
#     diff_id is the layer's digest, manifest.json names the same blobs;
#  3. the layer alone, unpacked, runs: in a private mount namespace with
#     /proc, /sys and /dev mounted, `chroot` into it runs blkperfd (a 1 s
#     workload on a file, and `serve`) and blkperf (`health` against that
#     daemon) using only the libraries the image carries.
#
#   image_test.sh BUILD_IMAGE_PY BLKPERFD BLKPERF
set -u
BUILD="$1"
BLKPERFD="$2"
BLKPERF="$3"
DIR="$(mktemp -d "${TEST_TMPDIR:-/tmp}/image_test.XXXXXX")"
cleanup() { rm -rf "$DIR"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || fail "needs root (unshare --mount, chroot)"

python3 "$BUILD" --blkperfd="$BLKPERFD" --blkperf="$BLKPERF" \
    --out="$DIR/a.tar" >"$DIR/a.out" 2>&1 || fail "build: $(cat "$DIR/a.out")"
python3 "$BUILD" --blkperfd="$BLKPERFD" --blkperf="$BLKPERF" \
    --out="$DIR/b.tar" >"$DIR/b.out" 2>&1 || fail "second build: $(cat "$DIR/b.out")"
digest_a=$(awk '{print $2}' "$DIR/a.out")
digest_b=$(awk '{print $2}' "$DIR/b.out")
[[ $digest_a == sha256:* && $digest_a == "$digest_b" ]] ||
  fail "two builds differ: $digest_a vs $digest_b"
echo "ok: reproducible, manifest $digest_a"

mkdir "$DIR/archive" "$DIR/root"
tar -xf "$DIR/a.tar" -C "$DIR/archive" || fail "the archive does not unpack"
python3 - "$DIR/archive" "$DIR/root" "$digest_a" <<'PY' || fail "archive structure"
import hashlib, json, os, sys, tarfile
archive, root, want = sys.argv[1:]
def blob(d):
    path = os.path.join(archive, "blobs", *d.split(":"))
    data = open(path, "rb").read()
    assert "sha256:" + hashlib.sha256(data).hexdigest() == d, f"{d} content"
    return data
assert json.load(open(os.path.join(archive, "oci-layout"))) == {"imageLayoutVersion": "1.0.0"}
index = json.load(open(os.path.join(archive, "index.json")))
[entry] = index["manifests"]
assert entry["digest"] == want, (entry["digest"], want)
manifest_bytes = blob(entry["digest"])
assert len(manifest_bytes) == entry["size"]
manifest = json.loads(manifest_bytes)
config_bytes = blob(manifest["config"]["digest"])
assert len(config_bytes) == manifest["config"]["size"]
config = json.loads(config_bytes)
[layer] = manifest["layers"]
assert layer["mediaType"] == "application/vnd.oci.image.layer.v1.tar"
layer_bytes = blob(layer["digest"])
assert len(layer_bytes) == layer["size"]
assert config["rootfs"]["diff_ids"] == [layer["digest"]]
assert config["config"]["Entrypoint"] == ["/usr/local/bin/blkperfd"]
[docker] = json.load(open(os.path.join(archive, "manifest.json")))
assert docker["Config"] == "blobs/sha256/" + manifest["config"]["digest"][7:]
assert docker["Layers"] == ["blobs/sha256/" + layer["digest"][7:]]
assert docker["RepoTags"] == ["blkperf:0.1.0"]
with tarfile.open(os.path.join(archive, "blobs", *layer["digest"].split(":"))) as t:
    names = t.getnames()
    assert all(m.uid == 0 and m.gid == 0 for m in t.getmembers())
    t.extractall(root)
for need in ("usr/local/bin/blkperfd", "usr/local/bin/blkperf", "etc/passwd",
             "etc/ld.so.cache", "var/lib/blkperf", "tmp"):
    assert need in names, f"{need} missing from the layer"
assert not any(n.endswith("/sh") or n == "bin/sh" for n in names), "a shell"
print(f"ok: OCI layout and docker archive consistent, {len(names)} entries")
PY

# The image's own files only: a private mount namespace, chroot.
ROOT="$DIR/root"
dd if=/dev/zero of="$ROOT/var/lib/blkperf/t.dat" bs=1M count=16 status=none
unshare --mount --fork bash -s "$ROOT" <<'SH' >"$DIR/run.log" 2>&1
set -u
ROOT=$1
mount --make-rprivate /
mount -t proc proc "$ROOT/proc"
mount -t sysfs sysfs "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"
in_image() { chroot "$ROOT" "$@"; }
in_image /usr/local/bin/blkperfd run --target=/var/lib/blkperf/t.dat \
    --runtime=1s --qd=4 --data_dir=/var/lib/blkperf --json >"$ROOT/tmp/run.json" ||
  { echo "blkperfd run failed in the image"; exit 1; }
in_image /usr/local/bin/blkperfd serve --listen=127.0.0.1:0 --port_file=/tmp/port \
    --metrics_listen= --data_dir=/var/lib/blkperf &
pid=$!
for _ in $(seq 100); do [[ -s "$ROOT/tmp/port" ]] && break; sleep 0.1; done
[[ -s "$ROOT/tmp/port" ]] || { echo "blkperfd serve did not start in the image"; exit 1; }
in_image /usr/local/bin/blkperf --server="127.0.0.1:$(cat "$ROOT/tmp/port")" health
rc=$?
kill -TERM "$pid"; wait "$pid"
exit $rc
SH
rc=$?
[[ $rc -eq 0 ]] || fail "running the image (exit $rc): $(tail -20 "$DIR/run.log")"
python3 - "$ROOT/tmp/run.json" <<'PY' || fail "the workload in the image: $(head -c 600 "$ROOT/tmp/run.json")"
import json, sys
r = json.load(open(sys.argv[1]))
ios = int(r["total"]["ios"])
assert ios > 0 and r["state"] == "finished", (ios, r["state"])
print(f"ok: blkperfd ran a 1 s workload inside the image: {ios} I/Os")
PY
grep -q SERVING "$DIR/run.log" || fail "health did not answer SERVING: $(tail -5 "$DIR/run.log")"
echo "ok: blkperfd serve and blkperf health inside the image: $(grep SERVING "$DIR/run.log")"
echo PASS

#!/usr/bin/env python3
"""Builds the blkperf container image without a container engine.

The image holds /usr/local/bin/blkperfd and /usr/local/bin/blkperf and,
at their own paths, exactly the shared libraries they load (resolved with
ldd on the build host, the dynamic loader included), plus the few files a
process expects (/etc/passwd, /etc/group, /etc/nsswitch.conf, an
ld.so.cache made with `ldconfig -r`) and empty mount points (/proc, /sys,
/dev, /tmp, /run, /var/lib/blkperf). No shell, no package manager. The
libraries come from the Debian packages the binaries were built against,
so the image runs what was tested.

The output is one tar that is both an OCI image layout (oci-layout,
index.json, blobs/sha256/...) and a `docker save` archive (manifest.json
naming the same blobs), so any of these loads or pushes it:

  podman load -i blkperf-image.tar
  docker load -i blkperf-image.tar
  skopeo copy oci-archive:blkperf-image.tar docker://registry.example.com/blkperf:0.1.0

It is reproducible: entries sorted, owned by root, mtime --mtime (default
0, or $SOURCE_DATE_EPOCH), so the same binaries give the same digests.

  build_image.py --blkperfd=PATH --blkperf=PATH --out=blkperf-image.tar \\
      [--tag=blkperf:0.1.0] [--rootfs=DIR]

--rootfs also leaves the image's file tree in DIR (a new directory), for
inspection or to run it with chroot (deploy/container/image_test.sh).
Prints the manifest digest. Exits 1 with the reason when a library cannot
be resolved.
"""
import argparse
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ARCH = {"x86_64": "amd64", "aarch64": "arm64"}
ETC_FILES = {
    "etc/passwd": "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                  "nonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin\n",
    "etc/group": "root:x:0:\nnonroot:x:65532:\n",
    # glibc >= 2.34 has the files and dns modules built in.
    "etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n",
}
# (path, mode): mount points and writable places.
DIRECTORIES = [("proc", 0o555), ("sys", 0o555), ("dev", 0o755),
               ("tmp", 0o1777), ("run", 0o755), ("root", 0o700),
               ("home/nonroot", 0o700), ("var/lib/blkperf", 0o700),
               ("usr/local/bin", 0o755), ("etc", 0o755)]


def fail(message):
    sys.stderr.write(f"build_image: {message}\n")
    sys.exit(1)


def shared_libraries(binary):
    """Absolute paths of every library `binary` loads, loader included."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"ldd {binary}: {out.stderr.strip() or out.stdout.strip()}")
    paths = []
    for line in out.stdout.splitlines():
        line = line.strip()
        if "not found" in line:
            fail(f"{binary}: a library is not found: {line}")
        m = re.match(r"\S+ => (/\S+) \(0x[0-9a-f]+\)$", line) or \
            re.match(r"(/\S+) \(0x[0-9a-f]+\)$", line)
        if m:
            paths.append(m.group(1))
    if not paths:
        fail(f"ldd {binary} listed no libraries (a static binary?)")
    return paths


def with_link_chain(path):
    """`path` and, if it is a symlink, every link and file it leads to
    (a relative link stays relative inside the image)."""
    chain = []
    seen = set()
    while path not in seen:
        seen.add(path)
        chain.append(path)
        if not os.path.islink(path):
            break
        target = os.readlink(path)
        path = os.path.normpath(os.path.join(os.path.dirname(path), target))
    return chain


def populate(root, blkperfd, blkperf):
    for d, mode in DIRECTORIES:
        os.makedirs(os.path.join(root, d), exist_ok=True)
        os.chmod(os.path.join(root, d), mode)
    for name, text in ETC_FILES.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
    for source, name in ((blkperfd, "blkperfd"), (blkperf, "blkperf")):
        dest = os.path.join(root, "usr/local/bin", name)
        shutil.copyfile(source, dest)
        os.chmod(dest, 0o755)
    files = set()
    for binary in (blkperfd, blkperf):
        for lib in shared_libraries(binary):
            files.update(with_link_chain(lib))
    for path in sorted(files):
        dest = os.path.join(root, path.lstrip("/"))
        # A directory that is a symlink on the host (/lib -> usr/lib on a
        # merged-/usr system) is made the same link in the image.
        parent = os.path.dirname(path)
        for i in range(2, len(parent.split("/")) + 1):
            host_dir = "/".join(parent.split("/")[:i])
            image_dir = os.path.join(root, host_dir.lstrip("/"))
            if os.path.islink(host_dir) and not os.path.lexists(image_dir):
                os.makedirs(os.path.dirname(image_dir), exist_ok=True)
                target = os.readlink(host_dir)
                os.symlink(target, image_dir)
                # The link's target directory, inside the image.
                inside = (os.path.join(root, target.lstrip("/"))
                          if os.path.isabs(target) else
                          os.path.join(os.path.dirname(image_dir), target))
                os.makedirs(inside, exist_ok=True)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.lexists(dest):
            continue
        if os.path.islink(path):
            os.symlink(os.readlink(path), dest)
        else:
            shutil.copyfile(path, dest)
            os.chmod(dest, 0o755)
    # The loader's cache, for the directories the libraries are in.
    with open(os.path.join(root, "etc/ld.so.conf"), "w") as f:
        for d in sorted({os.path.dirname(p) for p in files}):
            f.write(d + "\n")
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    if os.path.exists(ldconfig):
        subprocess.run([ldconfig, "-r", root], check=True)
    return sorted(files)


def layer_tar(root, mtime):
    """The root tree as an uncompressed tar: sorted, root-owned, fixed mtime."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        entries = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                entries.append(os.path.join(dirpath, name))
        for path in sorted(entries, key=lambda p: os.path.relpath(p, root)):
            info = tar.gettarinfo(path, arcname=os.path.relpath(path, root))
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = mtime
            if info.isfile():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    return buffer.getvalue()


def digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def image_blobs(layer, mtime):
    """(config, manifest) JSON bytes for one uncompressed layer."""
    arch = ARCH.get(os.uname().machine, os.uname().machine)
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))
    config = {
        "architecture": arch,
        "os": "linux",
        "created": created,
        "config": {
            "Entrypoint": ["/usr/local/bin/blkperfd"],
            "Cmd": ["serve"],
            "Env": ["PATH=/usr/local/bin:/usr/bin:/bin"],
            "WorkingDir": "/",
            "ExposedPorts": {"7777/tcp": {}, "9477/tcp": {}},
            "Labels": {"org.opencontainers.image.title": "blkperf",
                       "org.opencontainers.image.description":
                           "blkperfd (the daemon) and blkperf (the client)"},
        },
        "rootfs": {"type": "layers", "diff_ids": [digest(layer)]},
        "history": [{"created": created,
                     "created_by": "deploy/container/build_image.py"}],
    }
    config_bytes = json.dumps(config, sort_keys=True).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": digest(config_bytes), "size": len(config_bytes)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": digest(layer), "size": len(layer)}],
    }
    return config_bytes, json.dumps(manifest, sort_keys=True).encode()


def write_archive(out, tag, layer, config, manifest, mtime):
    blob = lambda data: "blobs/sha256/" + hashlib.sha256(data).hexdigest()
    repository, _, version = tag.rpartition(":")
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": digest(manifest), "size": len(manifest),
            "annotations": {"org.opencontainers.image.ref.name": version,
                            "io.containerd.image.name": tag}}],
    }
    docker = [{"Config": blob(config), "RepoTags": [tag],
               "Layers": [blob(layer)]}]
    members = [
        ("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode()),
        ("index.json", json.dumps(index, sort_keys=True).encode()),
        ("manifest.json", json.dumps(docker).encode()),
        (blob(config), config), (blob(manifest), manifest), (blob(layer), layer),
    ]
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
        for directory in ("blobs", "blobs/sha256"):
            info = tarfile.TarInfo(directory)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, mtime
            tar.addfile(info)
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, mtime
            tar.addfile(info, io.BytesIO(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blkperfd", required=True)
    parser.add_argument("--blkperf", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tag", default="blkperf:0.1.0")
    parser.add_argument("--rootfs", help="also leave the image's tree here")
    parser.add_argument("--mtime", type=int,
                        default=int(os.environ.get("SOURCE_DATE_EPOCH", "0")))
    a = parser.parse_args()
    if ":" not in a.tag or a.tag.endswith(":"):
        fail(f"--tag {a.tag[:80]!r} is not NAME:VERSION")
    for flag, path in (("--blkperfd", a.blkperfd), ("--blkperf", a.blkperf)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            fail(f"{flag} {path[:200]} is not an executable file")
    root = a.rootfs or os.path.join(os.path.dirname(os.path.abspath(a.out)),
                                    ".blkperf-image-rootfs")
    if os.path.lexists(root):
        fail(f"{root[:200]} exists: the image tree needs a new directory")
    try:
        os.makedirs(root)
        libraries = populate(root, a.blkperfd, a.blkperf)
        layer = layer_tar(root, a.mtime)
    finally:
        if not a.rootfs:
            shutil.rmtree(root, ignore_errors=True)
    config, manifest = image_blobs(layer, a.mtime)
    write_archive(a.out, a.tag, layer, config, manifest, a.mtime)
    print(f"{a.tag} {digest(manifest)} ({len(libraries)} library files, "
          f"layer {len(layer) >> 20} MiB) -> {a.out}")


if __name__ == "__main__":
    main()

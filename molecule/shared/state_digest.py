"""Digest of every file and live value an iotune audit must not change.

Files under /etc and /usr/local (content, mode, owner; link targets), every
/sys/block/*/queue attribute (a dm device under its dm name), every /proc/sys/vm value and every mount's live
options. Prints one JSON object {item: sha256}, or with --save FILE writes it to FILE
(mode 0600); compare two runs with --diff FILE.
"""
import hashlib
import json
import os
import stat
import sys

ROOTS = ("/etc", "/usr/local")


def digest(data):
    return hashlib.sha256(data).hexdigest()


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        return ("unreadable: %s" % exc.strerror).encode()


def dev_label(dev):
    name = read(os.path.join("/sys/block", dev, "dm", "name")).decode(errors="replace").strip()
    return "dm:" + name if dev.startswith("dm-") and name and not name.startswith("unreadable") else dev


def state():
    items = {}
    for root in ROOTS:
        for top, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
                path = os.path.join(top, name)
                st = os.lstat(path)
                meta = "%o:%d:%d" % (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)
                if stat.S_ISLNK(st.st_mode):
                    items[path] = digest(("link:" + os.readlink(path) + meta).encode())
                elif stat.S_ISREG(st.st_mode):
                    items[path] = digest(read(path) + meta.encode())
    for dev in sorted(os.listdir("/sys/block")):
        queue = os.path.join("/sys/block", dev, "queue")
        # a dm device by its dm name: its dm-N number may change at a reboot
        label = os.path.join("/sys/block", dev_label(dev), "queue")
        for name in sorted(os.listdir(queue)) if os.path.isdir(queue) else []:
            path = os.path.join(queue, name)
            if os.path.isfile(path):
                items[os.path.join(label, name)] = digest(read(path))
    for name in sorted(os.listdir("/proc/sys/vm")):
        path = os.path.join("/proc/sys/vm", name)
        if os.access(path, os.R_OK) and os.path.isfile(path):
            items[path] = digest(read(path))
    for line in read("/proc/self/mountinfo").decode(errors="replace").splitlines():
        fields = line.split()
        sep = fields.index("-")
        items["mount:" + fields[4]] = digest((fields[5] + " " + fields[sep + 3]).encode())
    return items


def main():
    now = state()
    if len(sys.argv) == 3 and sys.argv[1] == "--diff":
        with open(sys.argv[2]) as handle:
            before = json.load(handle)
        changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
        print(json.dumps({"items": len(now), "changed": changed}))
    elif len(sys.argv) == 3 and sys.argv[1] == "--save":
        fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(json.dumps(now, sort_keys=True) + "\n")
    elif len(sys.argv) == 1:
        print(json.dumps(now, sort_keys=True))
    else:
        sys.exit("usage: state_digest.py [--diff FILE | --save FILE]")


if __name__ == "__main__":
    main()

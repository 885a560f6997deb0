#!/usr/bin/env python3
"""Make the rocmcheck wheel: the portable binary as a wheel script, so that
`pip install rocmcheck-*.whl` puts it on the environment's PATH, with the
manual pages under the environment's share/man. No Python code: the binary
runs without Python, and pip only copies it.

Tag py3-none-manylinux_2_28_x86_64: any Python 3, no Python ABI, glibc >= 2.28
on x86_64, which is what ci/release's binary needs (auditwheel show checks).

usage: ci/wheel.py BINARY OUT_DIR
"""
import base64
import glob
import hashlib
import os
import subprocess
import sys
import zipfile

TAG = "py3-none-manylinux_2_28_x86_64"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def add(zf, records, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | mode) << 16
    zf.writestr(info, data)
    records.append(record_line(name, data))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    binary, out = sys.argv[1:]
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    first = subprocess.run([binary, "version"], check=True, capture_output=True, text=True).stdout
    version = first.split()[1]  # "rocmcheck 0.1.0"
    dist = f"rocmcheck-{version}"
    info = f"{dist}.dist-info"
    data = f"{dist}.data"
    path = os.path.join(out, f"{dist}-{TAG}.whl")
    metadata = (
        "Metadata-Version: 2.1\n"
        "Name: rocmcheck\n"
        f"Version: {version}\n"
        "Summary: GPU compute stack doctor for ROCm and CUDA (the rocmcheck binary)\n"
        "Requires-Python: >=3\n"
        "\n"
        "The rocmcheck command: an x86_64 Linux binary that needs only glibc >= 2.28.\n"
        "It does not need Python to run: the wheel installs it as a script.\n")
    wheel = ("Wheel-Version: 1.0\n"
             "Generator: rocmcheck ci/wheel.py\n"
             "Root-Is-Purelib: false\n"
             f"Tag: {TAG}\n")
    records = []
    with zipfile.ZipFile(path + ".new", "w") as zf:
        with open(binary, "rb") as f:
            add(zf, records, f"{data}/scripts/rocmcheck", f.read(), 0o755)
        for page in sorted(glob.glob(os.path.join(src, "man", "*.[15]"))):
            section = page.rsplit(".", 1)[1]
            with open(page, "rb") as f:
                add(zf, records, f"{data}/data/share/man/man{section}/{os.path.basename(page)}",
                    f.read(), 0o644)
        add(zf, records, f"{info}/METADATA", metadata.encode(), 0o644)
        add(zf, records, f"{info}/WHEEL", wheel.encode(), 0o644)
        records.append(f"{info}/RECORD,,")
        add(zf, [], f"{info}/RECORD", ("\n".join(records) + "\n").encode(), 0o644)
    os.replace(path + ".new", path)
    print(path)


if __name__ == "__main__":
    main()

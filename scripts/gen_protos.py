"""Regenerate the SDK's protocol code from ``protos/`` (the one documented command).

    .venv/bin/python scripts/gen_protos.py            # rewrite sdk/src/pitch_sdk/proto
    .venv/bin/python scripts/gen_protos.py --check    # exit 1 if the checked-in code is stale

protoc writes modules that import each other as ``pitch.v1.x_pb2``; they live in the SDK as
``pitch_sdk.proto.pitch.v1``, so the import lines are rewritten (only import lines in the
``.py`` files: their serialized descriptors must keep the protocol's own names).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
TARGET = ROOT / "sdk" / "src" / "pitch_sdk" / "proto"
PACKAGE = "pitch_sdk.proto"
HEADER = '"""Generated from protos/ by scripts/gen_protos.py: do not edit."""\n'


def generate(out: Path) -> None:
    """Run protoc (grpcio-tools, mypy-protobuf) on every .proto into ``out``."""
    from grpc_tools import protoc

    # protoc finds the mypy-protobuf plugins on PATH: use the ones beside this Python.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    sources = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{PROTOS}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}",
            f"--mypy_out={out}", f"--mypy_grpc_out={out}", *sources]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for path in out.rglob("*.py*"):
        text = path.read_text()
        text = re.sub(r"^from pitch\.v1 import", f"from {PACKAGE}.pitch.v1 import", text, flags=re.M)
        text = re.sub(r"^import pitch\.v1\.", f"import {PACKAGE}.pitch.v1.", text, flags=re.M)
        if path.suffix == ".pyi":  # stubs also name the modules in annotations
            text = re.sub(r"(?<![\w.])pitch\.v1\.(\w+_pb2)", rf"{PACKAGE}.pitch.v1.\1", text)
        path.write_text(text)
    for package in (out, out / "pitch", out / "pitch" / "v1"):
        (package / "__init__.py").write_text(HEADER)


def stale_files(generated: Path) -> list[str]:
    """Files that differ between a fresh generation and the checked-in tree."""
    fresh = {p.relative_to(generated) for p in generated.rglob("*") if p.is_file()}
    current = {p.relative_to(TARGET) for p in TARGET.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    differ = [str(p) for p in sorted(fresh | current)
              if p not in fresh or p not in current or not filecmp.cmp(generated / p, TARGET / p, shallow=False)]
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report whether the code is stale")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(out)
        stale = stale_files(out)
        if args.check:
            if stale:
                print("stale generated protocol code (run scripts/gen_protos.py):", *stale, sep="\n  ")
                return 1
            print("generated protocol code is up to date")
            return 0
        shutil.rmtree(TARGET, ignore_errors=True)
        shutil.copytree(out, TARGET)
        # copytree gave it the temporary directory's mode, 0700: a sandboxed bot's uid could not import the SDK
        TARGET.chmod(0o755)
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

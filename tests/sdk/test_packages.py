"""Bot packages (``pitch_sdk.packages.archive``): packing is deterministic, a package round-trips,
and every hostile archive an author could send is refused with a message naming the problem,
before anything is written.  The hostile archives are built here with ``tarfile``."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_sdk.cli import app
from pitch_sdk.packages.archive import (
    MAX_ENTRIES,
    MAX_PACKED_BYTES,
    MAX_PATH_DEPTH,
    MAX_UNPACKED_BYTES,
    PackageError,
    extract,
    inspect,
    pack,
)
from pitch_sdk.packages.manifest import Manifest

BOT_SOURCE = b"from pitch_sdk.bots.random_bot import RandomBot\n\n\nclass MyBot(RandomBot):\n    pass\n"
MANIFEST = json.dumps({"bot": "bot.py:MyBot"}).encode()

Entry = tuple[tarfile.TarInfo, bytes]


def entry(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, mode: int = 0o644, **fields: object) -> Entry:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size = kind, mode, len(data) if kind == tarfile.REGTYPE else 0
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


GOOD = [entry("pitch-bot.json", MANIFEST), entry("bot.py", BOT_SOURCE)]


def tar_bytes(entries: list[Entry], fmt: int = tarfile.GNU_FORMAT) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt, encoding="utf-8", errors="surrogateescape") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


def package(entries: list[Entry]) -> bytes:
    return gzip.compress(tar_bytes(entries), mtime=0)


@pytest.fixture(scope="module")
def zeros_gz() -> bytes:
    """More zero bytes than a package may unpack to, gzip'd into ~130 KiB: one member of a MiB
    of zeros, repeated (a gzip file may be a sequence of members)."""
    return gzip.compress(bytes(2 ** 20), mtime=0) * (MAX_UNPACKED_BYTES // 2 ** 20 + 2)


# ----------------------------------------------------------------- hostile archives
HOSTILE: dict[str, tuple[list[Entry], str]] = {
    "parent path": ([*GOOD, entry("../evil.py", b"x")], "has '..' in its path"),
    "parent inside": ([*GOOD, entry("lib/../../evil.py", b"x")], "has '..' in its path"),
    "absolute path": ([*GOOD, entry("/etc/cron.d/evil", b"x")], "has an absolute path"),
    "symlink": ([*GOOD, entry("passwd", kind=tarfile.SYMTYPE, linkname="/etc/passwd")], "is a symbolic link"),
    "hardlink": ([*GOOD, entry("copy.py", kind=tarfile.LNKTYPE, linkname="bot.py")], "is a hard link"),
    "character device": ([*GOOD, entry("null", kind=tarfile.CHRTYPE, devmajor=1, devminor=3)], "is a device"),
    "block device": ([*GOOD, entry("sda", kind=tarfile.BLKTYPE, devmajor=8)], "is a device"),
    "fifo": ([*GOOD, entry("pipe", kind=tarfile.FIFOTYPE)], "is a fifo"),
    "setuid file": ([*GOOD, entry("run", b"#!/bin/sh\n", mode=0o4755)], "setuid, setgid or sticky"),
    "setgid folder": ([entry("lib", kind=tarfile.DIRTYPE, mode=0o2755), *GOOD], "setuid, setgid or sticky"),
    "sticky folder": ([entry("tmp", kind=tarfile.DIRTYPE, mode=0o1777), *GOOD], "setuid, setgid or sticky"),
    "duplicate name": ([*GOOD, entry("bot.py", b"class Other: pass\n")], "appears twice"),
    "duplicate after ./": ([*GOOD, entry("./bot.py", b"x")], "appears twice"),
    "file then folder": ([*GOOD, entry("bot.py/inner.py", b"x")], "which is a file"),
    "folder then file": ([entry("lib", kind=tarfile.DIRTYPE), entry("lib", b"x"), *GOOD], "both a file and a folder"),
    "file then same folder": ([*GOOD, entry("bot.py", kind=tarfile.DIRTYPE)], "both a file and a folder"),
    "folder twice": ([entry("lib", kind=tarfile.DIRTYPE), entry("lib/", kind=tarfile.DIRTYPE), *GOOD], "appears twice"),
    "too deep": ([*GOOD, entry("d/" * MAX_PATH_DEPTH + "f.py", b"x")], f"more than {MAX_PATH_DEPTH} folders"),
    "path too long": ([*GOOD, entry("a" * 256, b"x")], "longer than 255 characters"),
    "control character": ([*GOOD, entry("bot\x1b[2J.py", b"x")], "control characters"),
    "not UTF-8": ([*GOOD, entry(b"bot\xff.py".decode("utf-8", "surrogateescape"), b"x")], "not UTF-8"),
    "no manifest": ([entry("bot.py", BOT_SOURCE)], "no pitch-bot.json at its root"),
    "manifest in a folder": ([entry("sub/pitch-bot.json", MANIFEST), entry("bot.py", BOT_SOURCE)], "no pitch-bot.json"),
    "manifest not JSON": ([entry("pitch-bot.json", b"{bot: x"), entry("bot.py", BOT_SOURCE)], "not a JSON object"),
    "manifest too big": ([entry("pitch-bot.json", b" " * 5000 + MANIFEST), entry("bot.py")], "more than 4096"),
    "manifest both kinds": ([entry("pitch-bot.json", b'{"bot": "bot.py:A", "command": ["x"]}')], "exactly one of"),
    "bot file missing": ([entry("pitch-bot.json", MANIFEST), entry("other.py", BOT_SOURCE)], "names 'bot.py'"),
    "bot module missing": ([entry("pitch-bot.json", b'{"bot": "strategy.mine:MyBot"}'), entry("strategy/x.py")],
                           "names 'strategy.mine'"),
    "program missing": ([entry("pitch-bot.json", b'{"command": ["./pitch-go-bot"]}')], "names './pitch-go-bot'"),
    "program not executable": ([entry("pitch-bot.json", b'{"command": ["./run"]}'), entry("run", b"\x7fELF")],
                               "runs './run', which is not executable"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_package_is_refused_naming_the_problem(case: str, tmp_path: Path) -> None:
    entries, problem = HOSTILE[case]
    data = package(entries)
    with pytest.raises(PackageError, match=re.escape(problem)):
        inspect(data)
    dest = tmp_path / "bot"
    with pytest.raises(PackageError, match=re.escape(problem)):
        extract(data, dest)
    assert list(tmp_path.iterdir()) == [], "a refused package leaves nothing behind"


def test_a_bad_name_is_echoed_short(tmp_path: Path) -> None:
    with pytest.raises(PackageError) as caught:
        inspect(package([*GOOD, entry("x/" * 100 + "../evil", b"x")]))
    assert len(str(caught.value)) < 140
    assert "'..'" in str(caught.value)


def test_the_valid_package_of_the_hostile_cases_is_accepted() -> None:
    """The hostile cases above differ from this one package only in what they name."""
    info = inspect(package(GOOD))
    assert info.manifest == Manifest(bot="bot.py:MyBot")
    assert (info.files, info.unpacked_bytes) == (2, len(MANIFEST) + len(BOT_SOURCE))
    assert info.sha256 == hashlib.sha256(package(GOOD)).hexdigest()
    module_bot = [entry("pitch-bot.json", b'{"bot": "strategy.mine:MyBot"}'), entry("strategy/mine/__init__.py"),
                  entry("strategy/mine", kind=tarfile.DIRTYPE, mode=0o755), entry("./", kind=tarfile.DIRTYPE)]
    assert inspect(package(module_bot)).manifest.bot == "strategy.mine:MyBot", "a folder may be listed after its files"


def test_a_zip_bomb_stops_at_the_unpacked_limit(zeros_gz: bytes, tmp_path: Path) -> None:
    """A small package (a few hundred KiB) that inflates past the limit, whether inside a file
    or after the tar's end marker, is refused while decompressing, with nothing written."""
    header = tarfile.TarInfo("bot.py")
    header.size = MAX_UNPACKED_BYTES * 2
    manifest, content = GOOD[0]
    start = manifest.tobuf(tarfile.GNU_FORMAT) + content.ljust(tarfile.BLOCKSIZE, b"\0")
    inside = gzip.compress(start + header.tobuf(tarfile.GNU_FORMAT)) + zeros_gz
    after_the_end = package(GOOD) + zeros_gz
    assert max(len(inside), len(after_the_end)) < 200 * 1024
    with pytest.raises(PackageError, match="unpacks to more than 128 MiB"):
        inspect(after_the_end)
    dest = tmp_path / "bot"
    with pytest.raises(PackageError, match="unpacks to more than 128 MiB"):
        extract(inside, dest)
    assert list(tmp_path.iterdir()) == []
    assert not dest.exists()


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME])
def test_a_huge_extended_header_is_refused_before_it_is_read(kind: bytes, zeros_gz: bytes) -> None:
    """A pax header or GNU long name is read whole into memory by tar readers: one claiming
    100 MiB (of zeros that follow) is refused from its size, without decompressing them."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = kind, 100 * 2 ** 20
    with pytest.raises(PackageError, match=f"extended header of {header.size} bytes, more than 65536"):
        inspect(gzip.compress(header.tobuf(tarfile.GNU_FORMAT)) + zeros_gz)


def test_too_large_a_package_is_refused_as_it_is_read() -> None:
    """Past the packed limit the stream stops being read (a file object: no need to hold it all)."""
    stored = gzip.compress(tar_bytes([*GOOD, entry("data.bin", os.urandom(MAX_PACKED_BYTES))]), compresslevel=0)
    stream = io.BytesIO(stored)
    with pytest.raises(PackageError, match="larger than 32 MiB"):
        inspect(stream)
    assert stream.tell() <= MAX_PACKED_BYTES + 1


def test_too_many_entries_are_refused() -> None:
    folders = [entry(f"d{i}", kind=tarfile.DIRTYPE, mode=0o755) for i in range(MAX_ENTRIES)]
    with pytest.raises(PackageError, match=f"more than {MAX_ENTRIES} entries"):
        inspect(package([*GOOD, *folders]))
    inspect(package([*GOOD, *folders[:MAX_ENTRIES - 2]]))


@pytest.mark.parametrize(("data", "problem"), [
    (b"not a package at all", "not a readable gzip'd tar"),
    (gzip.compress(b"\x01" * 3000), "not a readable gzip'd tar"),
    (package(GOOD)[:-20], "not a readable gzip'd tar"),
    (package([*GOOD, entry("big.bin", os.urandom(20_000))])[:-9000], "not a readable gzip'd tar"),
    (gzip.compress(tar_bytes([*GOOD, entry("big.bin", os.urandom(20_000))])[:-12_000]), "not a readable gzip'd tar"),
    (b"", "not a readable gzip'd tar"),
], ids=["not gzip", "gzip of no tar", "truncated trailer", "truncated gzip", "tar truncated in a file", "empty"])
def test_what_is_not_a_package_is_refused(data: bytes, problem: str) -> None:
    with pytest.raises(PackageError, match=problem):
        inspect(data)


# ----------------------------------------------------------------- packing and unpacking
def bot_folder(root: Path) -> Path:
    """A Python bot folder: a package of modules, an executable script, a link to a file
    inside, caches and version control that are left out."""
    root.mkdir()
    (root / "strategy").mkdir()
    (root / "strategy" / "__init__.py").write_text("")
    (root / "strategy" / "mybot.py").write_bytes(BOT_SOURCE)
    (root / "tools").mkdir()
    (root / "tools" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "tools" / "run.sh").chmod(0o750)
    (root / "data.txt").write_text("weights\n")
    (root / "tools" / "data-link").symlink_to("../data.txt")
    for skipped in ("__pycache__", ".git", "strategy/__pycache__"):
        (root / skipped).mkdir()
        (root / skipped / "junk").write_text("junk")
    return root


def test_packing_a_folder_is_deterministic_and_round_trips(tmp_path: Path) -> None:
    first = pack(bot_folder(tmp_path / "a"), "MyBot")
    copy = bot_folder(tmp_path / "b")
    for path in copy.rglob("*"):
        os.utime(path, (1e9, 1e9), follow_symlinks=False)
    assert pack(copy, "MyBot") == first, "other times and another location give the same bytes"

    info = extract(first, tmp_path / "out")
    assert info.manifest == Manifest(bot="strategy/mybot.py:MyBot")
    out = tmp_path / "out"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        "data.txt", "pitch-bot.json", "strategy/__init__.py", "strategy/mybot.py", "tools/data-link", "tools/run.sh"]
    assert not (out / "tools" / "data-link").is_symlink()
    assert (out / "tools" / "data-link").read_text() == "weights\n"
    assert (out / "strategy" / "mybot.py").read_bytes() == BOT_SOURCE
    modes = {str(p.relative_to(out)): stat.S_IMODE(p.stat().st_mode) for p in [out, *out.rglob("*")]}
    assert modes["tools/run.sh"] == 0o555 and modes["data.txt"] == 0o444
    assert modes["."] == modes["strategy"] == 0o555, "the unpacked tree is read-only"
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert {m.mode for m in members} == {0o644, 0o755}


def test_a_folder_with_its_manifest_is_packed_as_it_is(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "a")
    (folder / "pitch-bot.json").write_text('{"bot": "strategy.mybot:MyBot"}')
    assert inspect(pack(folder)).manifest == Manifest(bot="strategy.mybot:MyBot")
    with pytest.raises(PackageError, match=re.escape("has its own pitch-bot.json")):
        pack(folder, "MyBot")


@pytest.mark.parametrize(("arrange", "bot_class", "problem"), [
    (lambda root: None, None, "no pitch-bot.json: add one, or name the bot's class"),
    (lambda root: None, "Missing", "no single Python file of the folder defines the class 'Missing'"),
    (lambda root: (root / "copy.py").write_bytes(BOT_SOURCE), "MyBot", "2 files do"),
    (lambda root: None, "data.txt:MyBot", "no file 'data.txt' defining the class"),
    (lambda root: (root / "escape").symlink_to("/etc/hostname"), "MyBot", "'escape' is a link to outside"),
    (lambda root: (root / "dirlink").symlink_to("strategy"), "MyBot", "'dirlink' is a link to a folder"),
    (lambda root: (root / "dangling").symlink_to("nowhere"), "MyBot", "'dangling' is a link to a folder or to "),
    (lambda root: os.mkfifo(root / "pipe"), "MyBot", "'pipe' is not a regular file"),
], ids=["no manifest no class", "no such class", "ambiguous class", "no such file", "link outside",
        "link to folder", "dangling link", "fifo"])
def test_a_folder_that_cannot_be_packed_says_why(tmp_path: Path, arrange: Callable[[Path], object],
                                                 bot_class: str | None, problem: str) -> None:
    folder = bot_folder(tmp_path / "a")
    arrange(folder)
    with pytest.raises(PackageError, match=re.escape(problem)):
        pack(folder, bot_class)


def test_a_single_file_gets_a_manifest(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_bytes(BOT_SOURCE)
    assert inspect(pack(bot, "MyBot")).manifest == Manifest(bot="bot.py:MyBot")
    with pytest.raises(PackageError, match="name the Bot class"):
        pack(bot)
    with pytest.raises(PackageError, match="defines no class 'Other'"):
        pack(bot, "Other")
    program = tmp_path / "my-bot"
    program.write_bytes(b"\x7fELF not really")
    with pytest.raises(PackageError, match="not a Python file or an executable program"):
        pack(program)
    program.chmod(0o755)
    info = extract(pack(program), tmp_path / "out")
    assert info.manifest == Manifest(command=("./my-bot",))
    assert os.access(tmp_path / "out" / "my-bot", os.X_OK)
    with pytest.raises(PackageError, match="only for a Python bot"):
        pack(program, "MyBot")
    with pytest.raises(PackageError, match="neither a file nor a folder"):
        pack(tmp_path / "missing")


def test_extract_needs_a_new_or_empty_folder(tmp_path: Path) -> None:
    data = package(GOOD)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "empty-target")
    (tmp_path / "empty-target").mkdir()
    for dest in (tmp_path / "full", tmp_path / "link"):
        with pytest.raises(PackageError, match="must be a new or empty folder"):
            extract(data, dest)
    assert (tmp_path / "full" / "x").read_text() == "x"
    (tmp_path / "empty").mkdir()
    extract(io.BytesIO(data), tmp_path / "empty")
    assert (tmp_path / "empty" / "bot.py").read_bytes() == BOT_SOURCE
    extract(data, tmp_path / "cache" / "by-hash" / "abc")
    assert (tmp_path / "cache" / "by-hash" / "abc" / "bot.py").read_bytes() == BOT_SOURCE
    assert [p.name for p in (tmp_path / "cache" / "by-hash").iterdir()] == ["abc"], "no unpacking folder is left"
    (tmp_path / "empty2").mkdir()
    with pytest.raises(PackageError, match="appears twice"):
        extract(package([*GOOD, entry("bot.py", b"again")]), tmp_path / "empty2")
    assert (tmp_path / "empty2").is_dir() and not any((tmp_path / "empty2").iterdir())


def test_pitch_bot_pack_writes_the_package_and_prints_its_summary(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "mine")
    result = CliRunner().invoke(app, ["pack", str(folder), "--class", "MyBot"])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "mine.tar.gz").read_bytes()
    assert f"sha256  {hashlib.sha256(written).hexdigest()}" in result.output
    assert "files   6" in result.output
    failed = CliRunner().invoke(app, ["pack", str(folder), "-o", str(tmp_path / "x.tar.gz")])
    assert failed.exit_code == 2
    assert "no pitch-bot.json" in failed.output and not (tmp_path / "x.tar.gz").exists()


# ----------------------------------------------------------------- the starter kits
def test_the_node_kit_folder_with_its_dependencies_packs(tmp_path: Path) -> None:
    """The Node kit after ``npm ci`` (~1200 files, links in node_modules/.bin) is one package;
    with the protocol copied in, the unpacked package loads it from itself, moved anywhere."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are not installed (scripts/ensure-kits.sh installs them)")
    from tests.kits.kit_process import KITS, ROOT, node_kit
    node_kit()
    links = [p for p in (KITS / "node" / "node_modules" / ".bin").iterdir() if p.is_symlink()]
    assert links, "npm made links in node_modules/.bin"
    kit = tmp_path / "kit"
    shutil.copytree(KITS / "node", kit, symlinks=True, ignore=shutil.ignore_patterns(".build.lock"))
    shutil.copytree(ROOT / "protos" / "pitch", kit / "protos" / "pitch")
    data = pack(kit)
    info = extract(data, tmp_path / "hosted" / "node")
    assert info.manifest == Manifest(command=("node", "bot.js"))
    assert info.files > 1000
    for link in links:
        copy = tmp_path / "hosted" / "node" / link.relative_to(KITS / "node")
        assert copy.is_file() and not copy.is_symlink() and copy.read_bytes() == link.read_bytes()
    loads = "const p = require('./src/protocol.js'); p.loadPitch().BotService; console.log(p.protosDir())"
    env = {key: value for key, value in os.environ.items() if key != "PITCH_PROTOS"}
    done = subprocess.run(["node", "-e", loads], cwd=tmp_path / "hosted" / "node", capture_output=True, text=True,
                          env=env, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "hosted" / "node" / "protos")


def test_a_built_go_kit_binary_packs(tmp_path: Path) -> None:
    if not shutil.which("go"):
        pytest.skip("go is not installed (scripts/ensure-kits.sh installs it)")
    from tests.kits.kit_process import go_kit
    binary = Path(go_kit()[0])
    info = extract(pack(binary), tmp_path / "go")
    assert info.manifest == Manifest(command=("./pitch-go-bot",))
    assert (tmp_path / "go" / "pitch-go-bot").read_bytes() == binary.read_bytes()
    assert os.access(tmp_path / "go" / "pitch-go-bot", os.X_OK)

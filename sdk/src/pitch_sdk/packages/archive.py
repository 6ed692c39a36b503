"""The bot package archive: a gzip'd tar of the bot's files with ``pitch-bot.json`` at its root.

Three operations, one format:

- :func:`pack` makes a package from an author's file or folder, byte for byte the same for
  the same files (sorted entries, times, owners and gzip header zeroed, modes 0644/0755), so
  the package's sha256 names its content and submitting the same folder twice is one artifact;
- :func:`inspect` reads a package as a stream and refuses, with :class:`PackageError` naming
  the problem, anything the arena will not unpack: too large (counted while decompressing,
  so a zip bomb stops at the limit, not after filling memory), too many entries, paths that
  escape or are unreadable, links, devices, fifos, setuid/setgid/sticky bits, duplicates,
  and a missing or invalid manifest;
- :func:`extract` makes the same checks while it writes regular files and directories (and
  nothing else) into a new directory, then leaves the tree read-only.

Archives are read from untrusted authors by the arena's web server and bot hosts, so every
limit is a named constant below and every refusal echoes at most a short part of a name.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from pitch_sdk.packages.manifest import MANIFEST_NAME, MAX_MANIFEST_BYTES, Manifest, ManifestError, parse_manifest

#: Largest package accepted, as sent (gzip'd).
MAX_PACKED_BYTES = 32 * 1024 * 1024
#: Most bytes the package may decompress to (the tar stream: files, headers and padding).
MAX_UNPACKED_BYTES = 128 * 1024 * 1024
#: Most entries (files and directories) in a package: the Node kit with its dependencies has ~1200.
MAX_ENTRIES = 5000
#: Longest path of an entry, in characters, and most path components.
MAX_PATH_CHARS = 255
MAX_PATH_DEPTH = 32
#: Longest extended header read (a pax header, or a GNU long name): tar readers hold one whole
#: in memory, and it holds a few names and numbers.
MAX_HEADER_BYTES = 64 * 1024
#: Folders :func:`pack` leaves out: caches and version control, never part of a bot.
SKIPPED_FOLDERS = frozenset({"__pycache__", ".git"})
#: How much of a name an error message repeats.
ECHO_CHARS = 60

_CHUNK = 1024 * 1024


class PackageError(ValueError):
    """A package (or a folder to pack) the arena will not take, saying what is wrong with it."""


@dataclass(frozen=True)
class PackageInfo:
    """What a checked package holds."""

    manifest: Manifest
    files: int
    """Regular files in the package."""
    unpacked_bytes: int
    """Total size of those files."""
    packed_bytes: int
    """Size of the package as sent."""
    sha256: str
    """SHA-256 of the package as sent: its name in the artifact store."""


def _shown(name: str) -> str:
    """A name for an error message: quoted, escaped, cut to :data:`ECHO_CHARS`."""
    cut = name if len(name) <= ECHO_CHARS else name[:ECHO_CHARS] + "…"
    return repr(cut)


# ----------------------------------------------------------------- reading
class _Hashing(io.RawIOBase):
    """The packed stream, hashed and counted as it is read; past :data:`MAX_PACKED_BYTES` it fails."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.digest = hashlib.sha256()
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.source.read(min(len(buffer), MAX_PACKED_BYTES + 1 - self.count) or 1)
        self.count += len(data)
        if self.count > MAX_PACKED_BYTES:
            raise PackageError(f"the package is larger than {MAX_PACKED_BYTES // 2 ** 20} MiB")
        self.digest.update(data)
        buffer[:len(data)] = data
        return len(data)


class _Bounded(io.RawIOBase):
    """The decompressed tar stream, counted as it is produced; past :data:`MAX_UNPACKED_BYTES`
    it fails, so a small package that inflates without end (a zip bomb) is stopped at the limit."""

    def __init__(self, source: gzip.GzipFile) -> None:
        self.source = source
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.source.read(min(len(buffer), MAX_UNPACKED_BYTES + 1 - self.count) or 1)
        self.count += len(data)
        if self.count > MAX_UNPACKED_BYTES:
            raise PackageError(f"the package unpacks to more than {MAX_UNPACKED_BYTES // 2 ** 20} MiB")
        buffer[:len(data)] = data
        return len(data)

    def drain(self) -> None:
        """Read to the end (checking the gzip trailer and the limit) past the tar's end marker."""
        while self.read(_CHUNK):
            pass


def _entry_path(member: tarfile.TarInfo) -> PurePosixPath | None:
    """The entry's path inside the package, checked; ``None`` for the root folder itself (``.``)."""
    name = member.name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise PackageError(f"the entry {_shown(name)} has a name that is not UTF-8") from None
    if not name.isprintable():
        raise PackageError(f"the entry {_shown(name)} has control characters in its name")
    if len(name) > MAX_PATH_CHARS:
        raise PackageError(f"the entry {_shown(name)} has a path longer than {MAX_PATH_CHARS} characters")
    if name.startswith("/"):
        raise PackageError(f"the entry {_shown(name)} has an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise PackageError(f"the entry {_shown(name)} has '..' in its path")
    if len(parts) > MAX_PATH_DEPTH:
        raise PackageError(f"the entry {_shown(name)} is more than {MAX_PATH_DEPTH} folders deep")
    return PurePosixPath(*parts) if parts else None


def _check_kind(member: tarfile.TarInfo) -> None:
    """Only regular files and folders, without special mode bits."""
    shown = _shown(member.name)
    if member.issym():
        raise PackageError(f"the entry {shown} is a symbolic link: packages hold only files and folders")
    if member.islnk():
        raise PackageError(f"the entry {shown} is a hard link: packages hold only files and folders")
    if member.ischr() or member.isblk():
        raise PackageError(f"the entry {shown} is a device: packages hold only files and folders")
    if member.isfifo():
        raise PackageError(f"the entry {shown} is a fifo: packages hold only files and folders")
    if member.issparse() or not (member.isreg() or member.isdir()):
        raise PackageError(f"the entry {shown} is of an unsupported kind: packages hold only files and folders")
    if member.mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX):
        raise PackageError(f"the entry {shown} has a setuid, setgid or sticky bit")


class _Listing:
    """The entries seen so far: counts them and refuses duplicates and a file used as a folder."""

    def __init__(self) -> None:
        self.files: set[PurePosixPath] = set()
        self.folders: set[PurePosixPath] = set()
        """Every folder: listed, or implied by an entry inside it."""
        self.listed_folders: set[PurePosixPath] = set()
        self.executables: set[PurePosixPath] = set()
        self.entries = 0
        self.unpacked_bytes = 0

    def add(self, path: PurePosixPath, member: tarfile.TarInfo) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise PackageError(f"the package has more than {MAX_ENTRIES} entries")
        shown = _shown(str(path))
        if path in (self.folders if member.isreg() else self.files):
            raise PackageError(f"the entry {shown} is both a file and a folder")
        if path in self.files or path in self.listed_folders:
            raise PackageError(f"the entry {shown} appears twice")
        for parent in path.parents:
            if parent in self.files:
                raise PackageError(f"the entry {shown} is inside {_shown(str(parent))}, which is a file")
        if member.isreg():
            self.files.add(path)
            self.unpacked_bytes += member.size
            if member.mode & 0o111:
                self.executables.add(path)
        else:
            self.folders.add(path)
            self.listed_folders.add(path)
        self.folders.update(parent for parent in path.parents if parent != PurePosixPath("."))


def _program_file(manifest: Manifest) -> tuple[str, list[PurePosixPath]]:
    """What the manifest names inside the package, and the files any of which would be it."""
    if manifest.bot is not None:
        where = manifest.bot.rpartition(":")[0]
        if where.endswith(".py"):
            return where, [PurePosixPath(where)]
        module = PurePosixPath(*where.split("."))
        return where, [module.with_suffix(".py"), module / "__init__.py"]
    program = manifest.command[0]
    if "/" in program and not program.startswith("/"):
        return program, [PurePosixPath(program)]
    return program, []


def _finish(listing: _Listing, manifest_raw: bytes | None, packed: _Hashing) -> PackageInfo:
    """The package's info once every entry passed: its manifest must name a file it holds."""
    if manifest_raw is None:
        raise PackageError(f"the package has no {MANIFEST_NAME} at its root")
    try:
        manifest = parse_manifest(manifest_raw)
    except ManifestError as exc:
        raise PackageError(str(exc)) from None
    named, candidates = _program_file(manifest)
    if candidates and not any(candidate in listing.files for candidate in candidates):
        raise PackageError(f"{MANIFEST_NAME} names {_shown(named)}, which is not a file of the package")
    if manifest.command and candidates and candidates[0] not in listing.executables:
        raise PackageError(f"{MANIFEST_NAME} runs {_shown(named)}, which is not executable (chmod +x it)")
    return PackageInfo(manifest, len(listing.files), listing.unpacked_bytes, packed.count, packed.digest.hexdigest())


class _BoundedInfo(tarfile.TarInfo):
    """An entry's header as :mod:`tarfile` reads it, refusing an extended header longer than
    :data:`MAX_HEADER_BYTES` before it is read into memory."""

    def _proc_member(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _EXTENDED_HEADERS and self.size > MAX_HEADER_BYTES:
            raise PackageError(f"the package has an extended header of {self.size} bytes, "
                               f"more than {MAX_HEADER_BYTES}")
        return super()._proc_member(tar)  # type: ignore[misc, no-any-return]


_EXTENDED_HEADERS = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                     tarfile.GNUTYPE_LONGLINK)


@contextmanager
def _unreadable() -> Iterator[None]:
    """Turn the archive libraries' errors about a damaged package into a :class:`PackageError`."""
    try:
        yield
    except (tarfile.TarError, zlib.error, EOFError, OSError) as exc:
        raise PackageError(f"the package is not a readable gzip'd tar: {_shown(str(exc))}") from None


class _Content:
    """A file's content in the package, whose reading fails with a :class:`PackageError`."""

    def __init__(self, raw: IO[bytes] | None) -> None:
        assert raw is not None  # tarfile gives content for every regular file
        self.raw = raw

    def read(self, size: int = -1) -> bytes:
        with _unreadable():
            return self.raw.read(size)


class _Reader:
    """One pass over a package: yields checked entries, then checks the manifest."""

    def __init__(self, data: bytes | BinaryIO) -> None:
        self.packed = _Hashing(io.BytesIO(data) if isinstance(data, bytes | bytearray | memoryview) else data)
        self.listing = _Listing()
        self.manifest_raw: bytes | None = None

    def entries(self) -> Iterator[tuple[PurePosixPath, tarfile.TarInfo, _Content | None]]:
        """Each checked entry in stream order (never the root folder itself), with a regular
        file's content to read before the next entry is asked for."""
        with _unreadable(), gzip.GzipFile(fileobj=self.packed, mode="rb") as unzipped:
            tar_stream = _Bounded(unzipped)
            with tarfile.open(fileobj=tar_stream, mode="r|", encoding="utf-8", errors="surrogateescape",
                              tarinfo=_BoundedInfo) as tar:
                yield from self._checked(tar)
            tar_stream.drain()

    def _checked(self, tar: tarfile.TarFile) -> Iterator[tuple[PurePosixPath, tarfile.TarInfo, _Content | None]]:
        while True:
            member = tar.next()
            if member is None:
                return
            path = _entry_path(member)
            _check_kind(member)
            if path is None:
                continue
            self.listing.add(path, member)
            content = _Content(tar.extractfile(member)) if member.isreg() else None
            if content is not None and path == PurePosixPath(MANIFEST_NAME):
                if member.size > MAX_MANIFEST_BYTES:
                    raise PackageError(f"{MANIFEST_NAME} has {member.size} bytes, more than {MAX_MANIFEST_BYTES}")
                self.manifest_raw = content.read()
                content = _Content(io.BytesIO(self.manifest_raw))
            yield path, member, content

    def info(self) -> PackageInfo:
        """The package's info, once :meth:`entries` ran to its end."""
        return _finish(self.listing, self.manifest_raw, self.packed)


def inspect(data: bytes | BinaryIO) -> PackageInfo:
    """Check a whole package (bytes, or a stream read to its end) without writing anything:
    its :class:`PackageInfo`, or :class:`PackageError` naming the first problem found."""
    reader = _Reader(data)
    for _path, _member, content in reader.entries():
        while content is not None and content.read(_CHUNK):
            pass  # read, not skipped: a file cut short fails here as it would in extract
    return reader.info()


def extract(data: bytes | BinaryIO, dest: Path) -> PackageInfo:
    """Unpack a package into ``dest``, which must not exist yet or be an empty folder, with
    :func:`inspect`'s checks on the way; the tree is read-only afterwards (files 0444, or 0555
    when packed executable; folders 0555).

    The package is unpacked into a new folder beside ``dest``, which is renamed to ``dest``
    only once every check passed: a ``dest`` that exists is a whole, checked package (a bot
    host may keep them as a cache), and a refused or interrupted one leaves nothing there.
    Only regular files and folders are written, each created new (``O_EXCL``, ``O_NOFOLLOW``)
    inside folders this call made, so nothing that existed before is followed or overwritten."""
    refused = PackageError(f"cannot unpack into {_shown(str(dest))}: it must be a new or empty folder")
    if dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir()))):
        raise refused
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.unpacking-", dir=dest.parent))
    try:
        info = _unpack(data, work)
        try:
            os.rename(work, dest)
        except OSError:
            raise refused from None
    except BaseException:
        _remove(work)
        raise
    return info


def _unpack(data: bytes | BinaryIO, root: Path) -> PackageInfo:
    """Write the package's files and folders into the empty folder ``root``, then make it read-only."""
    folders: dict[PurePosixPath, Path] = {}
    reader = _Reader(data)
    for path, member, content in reader.entries():
        for folder in [*reversed(path.parents[:-1]), *([path] if content is None else [])]:
            if folder not in folders:
                folders[folder] = root.joinpath(*folder.parts)
                os.mkdir(folders[folder], 0o700)
        if content is not None:
            _write(root.joinpath(*path.parts), content, executable=bool(member.mode & 0o111))
    info = reader.info()
    for folder_path in [*reversed(folders.values()), root]:
        os.chmod(folder_path, 0o555)
    return info


def _write(target: Path, content: _Content, executable: bool) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(content, out, _CHUNK)
        os.fchmod(out.fileno(), 0o555 if executable else 0o444)


def _remove(root: Path) -> None:
    """Delete a tree :func:`_unpack` wrote (its folders may be read-only already)."""
    for here, folders, _files in os.walk(root):
        os.chmod(here, 0o700)
        for name in folders:
            os.chmod(os.path.join(here, name), 0o700)
    shutil.rmtree(root)


# ----------------------------------------------------------------- packing
def pack(path: Path, bot_class: str | None = None) -> bytes:
    """The package of a file or a folder, checked as :func:`inspect` checks it.

    - a Python file: ``bot_class`` names its :class:`pitch_sdk.bot.Bot` class and the manifest
      is made for it; any other file is a program (a built Go kit binary), which must be
      executable: the manifest runs it (``{"command": ["./name"]}``);
    - a folder: its ``pitch-bot.json``, or else ``bot_class`` names the Bot class of one of its
      Python files (``Name``, found in the file that defines it, or ``file.py:Name``).

    Links inside the folder that point at a file inside it are packed as that file (npm makes
    such links in ``node_modules/.bin``); links that leave the folder, or point at folders, are
    refused.  ``__pycache__`` and ``.git`` are left out."""
    if path.is_dir():
        files = _folder_files(path)
        if PurePosixPath(MANIFEST_NAME) in files:
            if bot_class is not None:
                raise PackageError(f"the folder has its own {MANIFEST_NAME}: leave out the class")
        else:
            files[PurePosixPath(MANIFEST_NAME)] = (_folder_manifest(files, bot_class).to_json().encode(), False)
    elif path.is_file():
        files = _file_files(path, bot_class)
    else:
        raise PackageError(f"{_shown(str(path))} is neither a file nor a folder")
    data = _archive(files)
    inspect(data)
    return data


#: A file to pack: its content (bytes) or where to read it, and whether it is executable.
_Source = tuple[bytes | Path, bool]


def _executable(path: Path) -> bool:
    return bool(path.stat().st_mode & 0o111)


def _folder_files(folder: Path) -> dict[PurePosixPath, _Source]:
    """Every file to pack from ``folder``, by its path in the package."""
    root = folder.resolve()
    files: dict[PurePosixPath, _Source] = {}
    total = 0
    for here, folders, names in os.walk(root):
        folders[:] = sorted(name for name in folders if name not in SKIPPED_FOLDERS)
        for name in [*folders, *names]:
            source = Path(here, name)
            inside = PurePosixPath(source.relative_to(root).as_posix())
            try:
                str(inside).encode("utf-8")
            except UnicodeEncodeError:
                raise PackageError(f"{_shown(str(inside))} has a name that is not UTF-8") from None
            if source.is_symlink():
                source = _link_target(root, source, inside)
            elif source.is_dir():
                continue
            elif not source.is_file():
                raise PackageError(f"{_shown(str(inside))} is not a regular file (a device, fifo or socket)")
            files[inside] = (source, _executable(source))
            total += source.stat().st_size
            if len(files) > MAX_ENTRIES:
                raise PackageError(f"the folder holds more than {MAX_ENTRIES} files")
            if total > MAX_UNPACKED_BYTES:
                raise PackageError(f"the folder's files add up to more than {MAX_UNPACKED_BYTES // 2 ** 20} MiB")
    return files


def _link_target(root: Path, link: Path, inside: PurePosixPath) -> Path:
    """The file inside ``root`` that ``link`` points at (a package holds it as a copy)."""
    target = link.resolve()
    if not target.is_relative_to(root):
        raise PackageError(f"{_shown(str(inside))} is a link to outside the folder")
    if not target.is_file():
        raise PackageError(f"{_shown(str(inside))} is a link to a folder or to nothing: only links to files are packed")
    return target


def _classes(source: bytes) -> set[str]:
    """The top-level classes a Python file defines (none when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.ClassDef)}


def _read(source: bytes | Path) -> bytes:
    return source if isinstance(source, bytes) else source.read_bytes()


def _folder_manifest(files: dict[PurePosixPath, _Source], bot_class: str | None) -> Manifest:
    """The manifest of a folder without one: its Python file defining ``bot_class``."""
    if bot_class is None:
        raise PackageError(f"the folder has no {MANIFEST_NAME}: add one, or name the bot's class")
    where, colon, name = bot_class.rpartition(":")
    if colon:
        if PurePosixPath(where) not in files or name not in _classes(_read(files[PurePosixPath(where)][0])):
            raise PackageError(f"the folder has no file {_shown(where)} defining the class {_shown(name)}")
        return Manifest(bot=bot_class)
    defining = sorted(str(path) for path, (source, _) in files.items()
                      if path.suffix == ".py" and bot_class in _classes(_read(source)))
    if len(defining) != 1:
        found = f"{len(defining)} files do: {', '.join(defining[:3])}" if defining else "none does"
        raise PackageError(f"no single Python file of the folder defines the class {_shown(bot_class)} ({found}); "
                           "name it as file.py:Class")
    return Manifest(bot=f"{defining[0]}:{bot_class}")


def _file_files(path: Path, bot_class: str | None) -> dict[PurePosixPath, _Source]:
    """A single file and the manifest made for it."""
    name = PurePosixPath(path.name)
    if path.suffix == ".py":
        if bot_class is None:
            raise PackageError(f"name the Bot class of {_shown(path.name)}")
        if bot_class not in _classes(path.read_bytes()):
            raise PackageError(f"{_shown(path.name)} defines no class {_shown(bot_class)}")
        manifest = Manifest(bot=f"{path.name}:{bot_class}")
    else:
        if bot_class is not None:
            raise PackageError("a class is named only for a Python bot (a .py file)")
        if not _executable(path):
            raise PackageError(f"{_shown(path.name)} is not a Python file or an executable program")
        manifest = Manifest(command=(f"./{path.name}",))
    return {name: (path, _executable(path)), PurePosixPath(MANIFEST_NAME): (manifest.to_json().encode(), False)}


def _archive(files: dict[PurePosixPath, _Source]) -> bytes:
    """The deterministic gzip'd tar of ``files``: sorted, no times, owners or gzip file name."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=6, mtime=0) as zipped, \
            tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(files):
            source, executable = files[path]
            content = _read(source)
            entry = tarfile.TarInfo(str(path))
            entry.size = len(content)
            entry.mode = 0o755 if executable else 0o644
            entry.mtime = 0
            entry.uid = entry.gid = 0
            entry.uname = entry.gname = ""
            tar.addfile(entry, io.BytesIO(content))
    return out.getvalue()

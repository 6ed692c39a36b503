"""The file artifact store: content addressed, atomic, idempotent, and checked on read."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from store.artifacts import ArtifactError, Artifacts, FileArtifacts, MissingArtifact


def test_put_stores_once_under_the_hash_and_get_gives_it_back(tmp_path: Path) -> None:
    artifacts: Artifacts = FileArtifacts(tmp_path)
    data = b"a package" * 1000
    sha256 = artifacts.put(data)
    assert sha256 == hashlib.sha256(data).hexdigest()
    assert artifacts.has(sha256) and artifacts.get(sha256) == data
    stored = tmp_path / "sha256" / sha256[:2] / sha256
    assert stored.read_bytes() == data
    assert stat.S_IMODE(stored.stat().st_mode) == 0o444
    before = stored.stat().st_ino
    assert artifacts.put(data) == sha256
    assert stored.stat().st_ino == before, "putting the same bytes again writes nothing"
    assert sorted(p.name for p in stored.parent.iterdir()) == [sha256], "no temporary file is left"


def test_a_missing_or_misnamed_artifact_is_refused(tmp_path: Path) -> None:
    artifacts = FileArtifacts(tmp_path)
    missing = "0" * 64
    assert not artifacts.has(missing)
    with pytest.raises(MissingArtifact, match=f"no artifact {missing}"):
        artifacts.get(missing)
    for bad in ("../../etc/passwd", "A" * 64, "0" * 63, "0" * 64 + "/x", "x" * 500):
        with pytest.raises(ArtifactError, match="is not an artifact name") as caught:
            artifacts.get(bad)
        assert len(str(caught.value)) < 140


def test_a_damaged_artifact_is_not_served_and_a_new_put_repairs_it(tmp_path: Path) -> None:
    artifacts = FileArtifacts(tmp_path)
    data = b"the real package"
    sha256 = artifacts.put(data)
    stored = artifacts.path(sha256)
    stored.chmod(0o644)
    stored.write_bytes(b"the real packagf")
    with pytest.raises(ArtifactError, match="is damaged"):
        artifacts.get(sha256)
    assert artifacts.put(data) == sha256
    assert artifacts.get(sha256) == data


def test_the_folder_comes_from_the_environment_or_the_data_directory(tmp_path: Path) -> None:
    chosen = FileArtifacts.from_env({"PITCH_ARTIFACTS_DIR": str(tmp_path / "cas"), "PITCH_DATA_DIR": "/nonexistent"})
    assert chosen.root == tmp_path / "cas"
    default = FileArtifacts.from_env({"PITCH_DATA_DIR": str(tmp_path / "data")})
    assert default.root == tmp_path / "data" / "artifacts"
    sha256 = default.put(b"x")
    assert FileArtifacts.from_env({"PITCH_DATA_DIR": str(tmp_path / "data")}).get(sha256) == b"x"
    assert os.listdir(tmp_path / "data") == ["artifacts"]

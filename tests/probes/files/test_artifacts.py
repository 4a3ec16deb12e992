"""The cache folder: CLAIMS_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache; one clear error
naming the folder and what to set when it cannot be written."""

from __future__ import annotations

import pytest

from claims.probes.files.artifacts import CacheUnwritable, cache_dir


@pytest.fixture
def env(monkeypatch, tmp_path):
    """No cache variable set, and a home folder of the test's own."""
    monkeypatch.delenv("CLAIMS_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def test_the_home_folders_cache_when_nothing_is_set(env, tmp_path):
    assert cache_dir() == tmp_path / "home" / ".cache" / "claims-suite"
    assert cache_dir().is_dir()


def test_xdg_cache_home_comes_before_the_home_folder(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "claims-suite"


def test_a_relative_xdg_cache_home_is_ignored_as_the_specification_says(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache_dir() == tmp_path / "home" / ".cache" / "claims-suite"


def test_claims_cache_dir_comes_first_and_is_used_as_named(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    env.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "mine dir ä"))
    assert cache_dir() == tmp_path / "mine dir ä"
    assert not (tmp_path / "xdg").exists()


@pytest.mark.parametrize("variable", ["HOME", "XDG_CACHE_HOME", "CLAIMS_CACHE_DIR"])
def test_a_folder_that_cannot_be_made_is_one_error_naming_it_and_what_to_set(
        env, tmp_path, variable):
    # A file where the folder would be: refused for root too (unlike permission bits).
    blocker = tmp_path / "a file"
    blocker.write_text("", encoding="utf-8")
    env.setenv(variable, str(blocker))
    with pytest.raises(CacheUnwritable) as caught:
        cache_dir()
    message = str(caught.value)
    assert str(blocker) in message and "Set CLAIMS_CACHE_DIR" in message


"""The Debian source fetcher reads the archive address from apt's own configuration."""

import pytest

from collrepro.installations import debian as ds


def write(tmp_path, name, text):
    d = tmp_path / "sources.list.d"
    d.mkdir(exist_ok=True)
    (d / name).write_text(text)


def test_deb822_entry_of_the_machine_release(tmp_path):
    write(tmp_path, "other.sources", "Types: deb\nURIs: file:/srv/mirror/other\nSuites: nodistro\nComponents: main\n")
    write(tmp_path, "debian.sources",
          "Types: deb\nURIs: file:/srv/mirror/debian\nSuites: bookworm bookworm-updates\n"
          "Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n\n"
          "Types: deb\nURIs: file:/srv/mirror/debian-security\nSuites: bookworm-security\nComponents: main\n")
    a = ds.machine_archive("bookworm", apt_dir=str(tmp_path))
    assert a.uri == "file:/srv/mirror/debian"
    assert a.keyring == "/usr/share/keyrings/k.gpg"


def test_disabled_and_source_only_entries_are_skipped(tmp_path):
    write(tmp_path, "a.sources", "Types: deb\nEnabled: no\nURIs: file:/srv/mirror/off\nSuites: bookworm\n\n"
          "Types: deb-src\nURIs: file:/srv/mirror/src\nSuites: bookworm\n")
    write(tmp_path, "b.list", "# comment\ndeb [arch=amd64 signed-by=/k.gpg] file:/srv/mirror/one/ bookworm main\n")
    a = ds.machine_archive("bookworm", apt_dir=str(tmp_path))
    assert a.uri == "file:/srv/mirror/one"
    assert a.keyring == "/k.gpg"


def test_no_entry_is_one_clear_error(tmp_path):
    write(tmp_path, "x.sources", "Types: deb\nURIs: file:/srv/mirror/x\nSuites: trixie\n")
    with pytest.raises(ds.SourceError, match="no apt entry for the Debian release 'bookworm'"):
        ds.machine_archive("bookworm", apt_dir=str(tmp_path))


def test_codename_from_os_release(tmp_path):
    f = tmp_path / "os-release"
    f.write_text('NAME="Debian"\nVERSION_CODENAME=bookworm\n')
    assert ds.machine_codename(str(f)) == "bookworm"
    f.write_text('NAME="Debian"\n')
    with pytest.raises(ds.SourceError):
        ds.machine_codename(str(f))

"""Debian source packages, fetched with apt from any suite, without touching the system's apt.

Two parts of the project need upstream sources that Debian packages: the MPI releases that
`collrepro.installations` builds (Open MPI and MPICH from other Debian suites) and MPICH's own
test suite (`test/mpi/coll`), which the interposition library's tests build and run. Neither
is committed: both are fetched at run time, here.

How:
- the archive address is the machine's own: the first `deb` entry of its apt configuration
  (`/etc/apt/sources.list.d/*.sources` in deb822 form, or `*.list` one-line entries) whose
  suites include the machine's release (`VERSION_CODENAME` of `/etc/os-release`); no address
  is written in the project;
- apt runs with a private state directory (lists, cache, source list) under the cache
  directory, so `apt-get update` for another suite leaves the system's apt state untouched;
- `apt-get source --download-only` checks the files against the suite's signed index (the
  archive keyring of the machine's entry), then `dpkg-source -x` checks the .dsc checksums
  again while it unpacks;
- the unpacked tree is moved into place only when complete (`<name>-<version>/` plus a
  `.complete` stamp), so an interrupted fetch is never mistaken for a source tree.

`collrepro-py mpi debian-source PACKAGE SUITE` prints the unpacked directory.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import EnvironmentProblem


class SourceError(EnvironmentProblem, RuntimeError):
    """One line that says what failed and what to do."""


def user_dir(override, xdg, default):
    """A per-user directory outside every clone: $override, else ${xdg:-~/default}/collrepro."""
    if os.environ.get(override):
        return os.environ[override]
    base = os.environ.get(xdg) or os.path.join(os.path.expanduser("~"), default)
    return os.path.join(base, "collrepro")


def cache_root():
    """Outside every clone: ${XDG_CACHE_HOME:-~/.cache}/collrepro (COLLREPRO_CACHE overrides)."""
    return user_dir("COLLREPRO_CACHE", "XDG_CACHE_HOME", ".cache")


@dataclass(frozen=True)
class Archive:
    uri: str
    keyring: str  # "" when the entry names none (apt's trusted keys then apply)


def machine_codename(os_release="/etc/os-release"):
    try:
        with open(os_release, encoding="utf-8") as f:
            for line in f:
                if line.startswith("VERSION_CODENAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    raise SourceError(f"cannot tell this machine's Debian release ({os_release} has no VERSION_CODENAME)")


def _deb822_entries(text):
    for stanza in re.split(r"\n\s*\n", text):
        fields = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line or line[:1].isspace():
                continue
            key, value = line.split(":", 1)
            fields[key.strip().lower()] = value.strip()
        if fields.get("enabled", "yes").lower() == "no":
            continue
        yield (fields.get("types", "").split(), fields.get("uris", "").split(),
               fields.get("suites", "").split(), fields.get("signed-by", ""))


def _one_line_entries(text):
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        m = re.match(r"^(deb|deb-src)\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
        if m:
            opts = m.group(2) or ""
            key = re.search(r"signed-by=(\S+?)[\s\]]", opts + " ")
            yield [m.group(1)], [m.group(3)], [m.group(4)], key.group(1) if key else ""


def machine_archive(codename=None, apt_dir="/etc/apt"):
    """The Debian archive this machine installs its release from, read from its apt configuration."""
    codename = codename or machine_codename()
    entries = []
    for path in sorted(glob.glob(os.path.join(apt_dir, "sources.list.d", "*.sources"))):
        entries += _deb822_entries(_read(path))
    for path in [os.path.join(apt_dir, "sources.list")] + sorted(glob.glob(os.path.join(apt_dir, "sources.list.d", "*.list"))):
        if os.path.exists(path):
            entries += _one_line_entries(_read(path))
    for types, uris, suites, keyring in entries:
        if "deb" in types and codename in suites and uris:
            return Archive(uris[0].rstrip("/"), keyring if keyring.startswith("/") else "")
    raise SourceError(f"no apt entry for the Debian release '{codename}' in {apt_dir}/sources.list(.d): "
                      "add the Debian archive to apt's configuration")


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _apt_options(state):
    return ["-o", f"Dir::State={state}/state", "-o", f"Dir::State::Lists={state}/lists",
            "-o", f"Dir::Cache={state}/cache", "-o", f"Dir::Etc::sourcelist={state}/sources.list",
            "-o", "Dir::Etc::sourceparts=-", "-o", "APT::Get::List-Cleanup=0", "-q"]


def _run(cmd, what, cwd=None, log=None):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write("$ " + " ".join(cmd) + "\n" + r.stdout)
    if r.returncode != 0:
        last = [l for l in r.stdout.splitlines() if l.strip()][-1:] or ["(no output)"]
        raise SourceError(f"{what} failed: {last[0].strip()}")
    return r.stdout


def _apt_state(suite, archive, root):
    """A private apt state directory for `suite`, updated once (delete it to refresh)."""
    state = os.path.join(root, "apt", suite)
    for d in ("state", "lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(state, d), exist_ok=True)
    with open(os.path.join(state, "state", "status"), "a", encoding="utf-8"):
        pass
    signed = f" [signed-by={archive.keyring}]" if archive.keyring else ""
    line = f"deb-src{signed} {archive.uri} {suite} main\n"
    src = os.path.join(state, "sources.list")
    fresh = not (os.path.exists(src) and _read(src) == line and os.path.exists(os.path.join(state, "updated")))
    if fresh:
        safeio.write_text(src, line)
        _run(["apt-get", *_apt_options(state), "update"], f"apt-get update for suite '{suite}'")
        safeio.write_text(os.path.join(state, "updated"), "")
    return state


def source_version(package, suite, root=None):
    """The version of `package`'s source in `suite` (from the private index)."""
    root = root or cache_root()
    state = _apt_state(suite, machine_archive(), root)
    out = _run(["apt-cache", *_apt_options(state), "showsrc", package], f"apt-cache showsrc {package}")
    versions = re.findall(r"^Version: (\S+)", out, re.M)
    if not versions:
        raise SourceError(f"suite '{suite}' has no source package '{package}'")
    return versions[0]


def fetch(package, suite, root=None, log=None):
    """Download, verify and unpack `package`'s source from `suite`; the unpacked directory.

    Idempotent: a complete earlier fetch is returned as it is."""
    if shutil.which("dpkg-source") is None:
        raise SourceError("dpkg-source is missing: install the Debian package dpkg-dev")
    root = root or cache_root()
    version = source_version(package, suite, root)
    upstream = version.split(":")[-1].rsplit("-", 1)[0]
    dest = os.path.join(root, "src", f"{package}-{version.replace(':', '_')}")
    tree = os.path.join(dest, f"{package}-{upstream}")
    if os.path.exists(os.path.join(dest, ".complete")):
        return tree
    state = _apt_state(suite, machine_archive(), root)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    # safeio's temporary name: a fetch killed here leaves a directory the next one removes
    safeio.remove_stale(dest)
    work = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}{safeio.TMP_TAG}{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    os.mkdir(work)
    try:
        _run(["apt-get", *_apt_options(state), "source", "--download-only", f"{package}={version}"],
             f"apt-get source {package}={version} (suite {suite})", cwd=work, log=log)
        dsc = glob.glob(os.path.join(work, "*.dsc"))
        if len(dsc) != 1:
            raise SourceError(f"apt-get source {package}: expected one .dsc, found {len(dsc)}")
        _run(["dpkg-source", "-x", dsc[0], os.path.basename(tree)], f"dpkg-source -x {os.path.basename(dsc[0])}",
             cwd=work, log=log)
        publish(work, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tree


def publish(work, dest):
    """Stamps the finished tree `work` complete and moves it to `dest` (replacing a stale one).

    Readers trust only a tree with its `.complete` stamp, so an interrupted build never counts."""
    open(os.path.join(work, ".complete"), "w").close()
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(work, dest)


def main(argv=None):
    """collrepro-py mpi debian-source PACKAGE SUITE: prints the unpacked directory. Raises UserError
    (usage, exit 2) or SourceError (exit 5): run it through safeio.run_cli."""
    ap = ArgumentParser(prog="mpi debian-source", description=__doc__.split("\n\n")[0])
    ap.add_argument("package", help="the Debian source package (openmpi, mpich)")
    ap.add_argument("suite", help="the Debian suite whose version to fetch (bookworm, trixie, ...)")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    print(fetch(args.package, args.suite))
    return 0

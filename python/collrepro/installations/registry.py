"""The installation registry: every MPI installation the tools know by name.

Three sources, in this order, and then the installations derived from them:
- the Debian-packaged libraries, found on the machine (Open MPI and MPICH from bookworm's
  packages: wrappers `mpicxx.openmpi` / `mpicxx.mpich`, launchers `mpirun.openmpi` /
  `mpiexec.mpich`), known out of the box and never written down;
- source builds in the per-user cache (`<cache>/mpi/<name>/`, build.py), listed only when
  their stamp says they are complete;
- prefixes registered with `add`, kept in `installations.json` of the per-user configuration
  directory (`$COLLREPRO_CONFIG_DIR`, else `${XDG_CONFIG_HOME:-~/.config}/collrepro`), outside
  every clone. The file is replaced atomically (a temporary file, fsync, rename); a damaged
  one is reported (one line naming it), never taken for an empty registry;
- derived installations (derived.py: another installation plus an environment, e.g.
  `openmpi-4.1.4+slow10`), declared with `derive` in the same file under "derived".

Identity strings (MPI_Get_library_version) cost a compile and a 2-process run, so `list`
keeps them in `<cache>/mpi/identity.json`, keyed by the installation's wrapper and its
modification time.
"""

import os
from dataclasses import replace

from collrepro import safeio
from collrepro.installations import debian as debian_source
from ..safeio import UserError
from . import build as builder
from . import derived as derivation
from . import probe
from .model import DEBIAN, NAME_RE, Installation, prefix_layout



class RegistryError(UserError, RuntimeError):
    """One line naming the input at fault and the fix."""


def config_dir():
    return debian_source.user_dir("COLLREPRO_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


def registry_file():
    return os.path.join(config_dir(), "installations.json")


# ------------------------------------------------------------------ the three sources

def debian_installations():
    """The Debian-packaged MPI libraries present on this machine."""
    found = []
    for kind, (tool, mpicc, mpicxx, launcher, prefix) in DEBIAN.items():
        if not all(os.access(p, os.X_OK) for p in (tool, mpicxx, launcher)):
            continue
        try:
            version = probe.tool_version(kind, tool)
            configure = probe.configure_options(kind, tool)
        except probe.ProbeError:
            continue
        found.append(Installation(name=f"{kind}-{version}", kind=kind, version=version, prefix=prefix,
                                  mpicc=mpicc, mpicxx=mpicxx, launcher=launcher, env={}, origin="debian",
                                  configure=configure))
    return found


def built_installations():
    """Complete source builds in the cache (a prefix without its stamp is not one)."""
    root = builder.installs_root()
    if not os.path.isdir(root):
        return []
    found = []
    for entry in sorted(os.listdir(root)):
        if entry.startswith(".") or entry == "logs":
            continue
        inst = builder.read_stamp(os.path.join(root, entry))
        if inst is not None:
            found.append(inst)
    return found


REGISTRY_LIMIT = 4 * safeio.MIB  # a few hundred bytes per added installation


def _registry_error(path, cause):
    return RegistryError(f"{path}: {cause}: fix it, or delete it and `bench/collmpi add` the prefixes again "
                         "(it only holds `add`ed prefixes)")


def _registry_data():
    """The registry file's object ({} when there is none); RegistryError (one line naming the
    file and the fix) when it is unreadable, oversized or damaged: never silently empty, which
    the next `add` or `derive` would write back over the others."""
    path = registry_file()
    if not os.path.exists(path):
        return {}
    try:
        data = safeio.load_json_file(path, REGISTRY_LIMIT, "the installation registry")
    except UserError as err:
        raise RegistryError(f"{err}; fix it, or delete it and `bench/collmpi add` the prefixes again "
                            "(it only holds `add`ed prefixes and `derive`d installations)") from None
    if not isinstance(data, dict) or not isinstance(data.get("installations", []), list) \
            or not isinstance(data.get("derived", []), list):
        raise _registry_error(path, 'not a registry (want {"version": 1, "installations": [...], "derived": [...]})')
    return data


def added_installations():
    """The installations registered with `add`; RegistryError when the file is damaged."""
    path = registry_file()
    found = []
    for i, entry in enumerate(_registry_data().get("installations", [])):
        fields = ("name", "kind", "version", "prefix", "mpicc", "mpicxx", "launcher")
        if not (isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in fields)
                and isinstance(entry.get("env", {}), dict)):
            raise _registry_error(path, f"entry {i} is not an installation (want the fields {', '.join(fields)})")
        found.append(Installation.from_json(entry))
    return found


def derived_declarations():
    """The `derive`d declarations, checked: [{name, base, delay, preload}]."""
    path = registry_file()
    out = []
    for i, entry in enumerate(_registry_data().get("derived", [])):
        try:
            out.append(derivation.check_declaration(entry, f"{path}: derived entry {i}"))
        except derivation.DerivedError as e:
            raise RegistryError(f"{e}: fix it, or `bench/collmpi remove` it and derive it again") from None
    return out


def _save(added=None, derived=None):
    """The registry file, replaced whole (safeio: a temporary file, fsync, rename); what is not
    given is kept as it is."""
    added = added_installations() if added is None else added
    derived = derived_declarations() if derived is None else derived
    data = {"version": 1, "installations": [i.to_json() for i in added]}
    if derived:
        data["derived"] = derived
    safeio.write_json(registry_file(), data, sort_keys=True)


def _save_added(installations):
    _save(added=installations)


def all_installations():
    """Every known installation, Debian first, then source builds, then added ones, then derived
    ones (each right after the others, in declaration order); a name appears once (the first
    source wins). A derived installation whose base is not known is left out of the list (`list`
    and `resolve` say why)."""
    seen, out = set(), []
    for inst in debian_installations() + built_installations() + added_installations():
        if inst.name not in seen:
            seen.add(inst.name)
            out.append(inst)
    by_name = {i.name: i for i in out}
    for decl in derived_declarations():
        base = by_name.get(decl["base"])
        if base is not None and decl["name"] not in seen:
            seen.add(decl["name"])
            out.append(derivation.derive(base, decl))
    return out


ALIASES = ("openmpi", "mpich")  # the Debian library of that kind, as the presets name it


def resolve(name):
    """The installation called `name` (or `openmpi` / `mpich`: the Debian one of that kind)."""
    known = all_installations()
    for inst in known:
        if inst.name == name or (name in ALIASES and inst.origin == "debian" and inst.kind == name):
            return inst
    for decl in derived_declarations():
        if decl["name"] == name:
            raise RegistryError(f"{name} is derived from {decl['base']}, which is not known here: build or add "
                                f"{decl['base']}, or `bench/collmpi remove {name}`")
    names = ", ".join(i.name for i in known) or "none"
    raise RegistryError(f"no MPI installation named '{name}' (known: {names}; add one with "
                        f"`bench/collmpi add NAME --prefix PATH` or build one with `bench/collmpi build KIND@VERSION`)")


# ------------------------------------------------------------------ add / remove

def add(name, prefix, kind=None):
    """Register the installation at `prefix` as `name`; the kind and version are probed.

    Raises RegistryError with one line for a bad name, a prefix that is no MPI installation,
    or one of another kind than the name (or `kind`) says."""
    if not NAME_RE.fullmatch(name):
        raise RegistryError(f"add {name}: a name is <kind>-<version> in lower case, e.g. openmpi-4.1.6 or mpich-4.2.0")
    prefix = os.path.abspath(prefix)
    if not os.path.isdir(prefix):
        raise RegistryError(f"add {name}: --prefix {prefix} is not a directory")
    if not os.path.isdir(os.path.join(prefix, "bin")):
        raise RegistryError(f"add {name}: --prefix {prefix} has no bin/: give the installation prefix "
                            "(the directory holding bin/, include/ and lib/)")
    try:
        found_kind, version = probe.kind_and_version(os.path.join(prefix, "bin"))
    except probe.ProbeError as e:
        raise RegistryError(f"add {name}: {e}")
    wanted = kind or name.split("-", 1)[0]
    if wanted in ALIASES and found_kind != wanted:
        raise RegistryError(f"add {name}: {prefix} holds {found_kind} {version}, not {wanted}: "
                            f"name it {found_kind}-{version} or give a {wanted} prefix")
    layout = prefix_layout(found_kind, prefix)
    for role in ("mpicc", "mpicxx", "launcher"):
        if not os.access(layout[role], os.X_OK):
            raise RegistryError(f"add {name}: {layout[role]} is missing: {prefix} is not a complete {found_kind} installation")
    tool = os.path.join(prefix, "bin", "ompi_info" if found_kind == "openmpi" else "mpichversion")
    inst = Installation(name=name, kind=found_kind, version=version, prefix=prefix, origin="added",
                        configure=probe.configure_options(found_kind, tool), **layout)
    taken = {i.name for i in debian_installations() + built_installations()}
    if name in taken:
        raise RegistryError(f"add {name}: the name is taken by a Debian package or a source build; choose another")
    added = [i for i in added_installations() if i.name != name] + [inst]
    _save_added(added)
    return inst


def add_entry(inst: Installation):
    """Register an installation record as it is, as a user writes an entry into the registry file
    by hand (e.g. a library's own wrappers with a slowdown library preloaded, slowlib.py);
    RegistryError (one line) for a bad or taken name."""
    if not NAME_RE.fullmatch(inst.name):
        raise RegistryError(f"add {inst.name}: a name is <kind>-<version>[+<tag>] in lower case, "
                            "e.g. openmpi-4.1.4+preload25")
    if inst.name in {i.name for i in debian_installations() + built_installations()} or \
            inst.name in {d["name"] for d in derived_declarations()}:
        raise RegistryError(f"add {inst.name}: the name is taken by another installation; choose another")
    _save_added([i for i in added_installations() if i.name != inst.name] + [replace(inst, origin="added")])
    return inst


def remove(name):
    """Forget an added or a derived installation (its files stay)."""
    declared = derived_declarations()
    if name in {d["name"] for d in declared}:
        _save(derived=[d for d in declared if d["name"] != name])
        return
    added = added_installations()
    if name not in {i.name for i in added}:
        raise RegistryError(f"remove {name}: only added and derived installations can be removed "
                            "(see `bench/collmpi list`)")
    _save_added([i for i in added if i.name != name])


def derive(name, base, delay="", preload=None):
    """Declare `name` as installation `base` plus an environment: the PMPI library of base's
    build preloaded with COLLREPRO_PMPI_DELAY=`delay` (a synthetic release), or nothing (delay
    '', an A/A copy; preload=True: the library without a delay). Returns the Installation;
    RegistryError (one line) for a bad name, rule or base."""
    try:  # what can be checked without probing the installations first
        derivation.check_declaration({"name": name, "base": name.rsplit("+", 1)[0], "delay": delay},
                                     f"derive {name}")
    except derivation.DerivedError as e:
        raise RegistryError(str(e)) from None
    known = [i for i in all_installations() if i.origin != "derived"]
    resolved = next((i for i in known if i.name == base or
                     (base in ALIASES and i.origin == "debian" and i.kind == base)), None)
    if resolved is None:
        if base in {d["name"] for d in derived_declarations()}:
            raise RegistryError(f"derive {name}: {base} is itself derived; derive from the real installation")
        raise RegistryError(f"derive {name}: no MPI installation named '{base}' (known: "
                            f"{', '.join(i.name for i in known) or 'none'})")
    decl = {"name": name, "base": resolved.name, "delay": delay}
    if preload is not None:
        decl["preload"] = preload
    try:
        decl = derivation.check_declaration(decl, f"derive {name}")
    except derivation.DerivedError as e:
        raise RegistryError(str(e)) from None
    if name in {i.name for i in known}:
        raise RegistryError(f"derive {name}: the name is taken by another installation; choose another")
    _save(derived=[d for d in derived_declarations() if d["name"] != name] + [decl])
    return derivation.derive(resolved, decl)


# ------------------------------------------------------------------ identity

def _identity_file():
    return os.path.join(builder.installs_root(), "identity.json")


def _identity_key(inst):
    try:
        return f"{inst.mpicc}:{os.stat(inst.mpicc).st_mtime_ns}:{inst.prefix}"
    except OSError:
        return None


def identity(inst, refresh=False):
    """MPI_Get_library_version of `inst` (compiled and run once, then cached); raises ProbeError."""
    key = _identity_key(inst)
    if key is None:
        raise probe.ProbeError(f"{inst.mpicc} is missing")
    try:  # a cache: a missing or damaged file is probed again and rewritten
        cache = safeio.load_json_file(_identity_file(), REGISTRY_LIMIT, "the identity cache")
    except UserError:
        cache = {}
    cache = cache if isinstance(cache, dict) else {}
    entry = cache.get(inst.name)
    if not refresh and isinstance(entry, dict) and entry.get("key") == key:
        return entry["identity"]
    # short: a launcher that waits for an allocation (a cluster's login node) should not stall `list`
    text = probe.run_probe([inst.mpicc], [inst.launcher, "-n", "2"], builder.build_env(inst), timeout=60)
    cache[inst.name] = {"key": key, "identity": text}
    builder.write_json_atomically(_identity_file(), cache)
    return text

"""The pure part of collslurm: array tasks, slices, file names, the `slurm:` settings.

Nothing here runs a program or reads a file. The slice rule, the task id and the result file
names come from the results contract (collrepro.contract); this module only applies them to a
whole array.
"""

import difflib
import re
import shlex

from collrepro import contract, safeio
from collrepro.installations.model import NAME_RE
from collrepro.mpienv import MPIS
from collrepro.safeio import UserError

LIBRARIES = MPIS  # the Debian libraries by kind; installation names (openmpi-5.0.7) are accepted too
TIME_RE = re.compile(r"^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|\d+-\d+:\d{1,2}:\d{1,2}"
                     r"|UNLIMITED|INFINITE)$", re.IGNORECASE)

# The `slurm:` section of a config: key -> (kind, default, help).
SCHEMA = {
    "nodes": ("posint", 1, "nodes per array task"),
    "ntasks_per_node": ("posint", None, "MPI processes per node; processes per launch = nodes x ntasks_per_node"),
    "time": ("time", None, "time limit per array task (sbatch --time); default: the partition's"),
    "partition": ("str", None, "sbatch --partition"),
    "account": ("str", None, "sbatch --account"),
    "qos": ("str", None, "sbatch --qos"),
    "throttle": ("nonnegint", 0, "at most this many tasks run at once (--array=...%N); 0 = no limit"),
    "sbatch_extra": ("words", [], "more sbatch flags: a list, or one string of shell words"),
    "launcher": (("mpirun", "srun"), "mpirun", "mpirun: the build's own launcher inside the allocation; srun: srun --mpi=<srun_mpi>"),
    "srun_mpi": ("str", None, "srun --mpi plugin; default pmix (Open MPI), pmi2 (MPICH)"),
    "launcher_flags": ("words", [], "more flags for mpirun/srun (e.g. [--bind-to, core])"),
    "slices": ("posint", 1, "slices per launch (contiguous chunks of the point list)"),
    "launches": ("posint", None, "launches; default: the config's top-level `launches`"),
    "overcommit": ("bool", False, "more processes than CPUs: sbatch --overcommit, mpirun --oversubscribe"),
    "mpi": ("mpi", "openmpi", "default MPI library (--mpi): openmpi, mpich or an installation name (bench/collmpi list)"),
    "build_dir": ("str", None, "CMake build holding bench/collbench; default build/<mpi>"),
    "job_name": ("str", None, "sbatch --job-name; default collrepro-<experiment>-<mpi>"),
    "env": ("env", {}, "environment variables exported in every task"),
}


class Fail(UserError):
    """A one-line error for the user, with its exit code (the exit-code table): 2 usage or
    configuration (the default), 5 a Slurm command missing or failing, 70 a contract mismatch."""

    def __init__(self, message, code=safeio.EXIT_BAD_INPUT):
        super().__init__(message)
        self.code = self.exit_code = code


# ------------------------------------------------------------------ tasks and slices

def task_of(launch, slc, slices):
    """The array task id of (launch, slice)."""
    return contract.array_task(launch, slc, slices)


def launch_slice_of(task, slices):
    """(launch, slice) of an array task id: the inverse of task_of."""
    return divmod(task, slices)


def mapping(npoints, launches, slices):
    """[{task, launch, slice, first, last, count}] for every array task."""
    out = []
    for t in range(launches * slices):
        launch, slc = launch_slice_of(t, slices)
        b, e = contract.slice_range(npoints, slc, slices)
        out.append({"task": t, "launch": launch, "slice": slc, "first": b, "last": e - 1, "count": e - b})
    return out


def task_files(launch, slc, slices, optional=False):
    """{kind: file name} of one task's results; the slice part only when a launch is sliced.
    The optional kinds (the phases file) only with optional=True."""
    part = slc if slices > 1 else None
    return {kind: contract.file_name(kind, launch, part) for kind, spec in contract.FILE_KINDS.items()
            if optional or not spec.get("optional")}


def result_globs():
    """Glob patterns matching every result file of any launch or slice (raw-*.csv, ...)."""
    kinds = contract.CONTRACT["files"]["kinds"]
    return [f"{kind}-*.{spec['extension']}" for kind, spec in kinds.items()]


# ------------------------------------------------------------------ Slurm's id lists

def compress(ids):
    """[0,1,2,5,7,8] -> '0-2,5,7-8' (Slurm's --array list syntax)."""
    ids = sorted(set(ids))
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(parts)


def expand(spec):
    """'0-2,5' -> [0,1,2,5]; raises ValueError."""
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            a, b = int(a), int(b)
            if a > b:
                raise ValueError(part)
            out.extend(range(a, b + 1))
        else:
            out.append(int(part))
    return sorted(set(out))


def array_spec(tasks, throttle):
    """sbatch's --array value: the task list, with %throttle when there is a limit."""
    spec = compress(tasks)
    return f"{spec}%{throttle}" if throttle else spec


def ranges_text(points):
    """[0,1,2,5] -> '0..2, 5'."""
    return compress(points).replace("-", "..").replace(",", ", ")


# ------------------------------------------------------------------ the slurm: settings

def _whole_number(key, name, value, kind):
    lo = 1 if kind == "posint" else 0
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok and isinstance(value, str) and re.fullmatch(r"\d+", value.strip()):
        value, ok = int(value), True
    if not ok or value < lo:
        if key == "throttle":
            raise Fail(f"{name} = {value!r}: want a whole number >= 1, the most array tasks running at once "
                       f"(e.g. {name.replace('slurm.', '--')} 4), or 0 for no limit")
        raise Fail(f"{name} = {value!r}: want a whole number >= {lo}")
    return value


def _slurm_time(name, value):
    text = str(value).strip()
    if not TIME_RE.match(text):
        raise Fail(f"{name} = {value!r} is not a Slurm time: use MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS "
                   f"(e.g. 00:30:00)")
    return text


def _single_text(name, value):
    if isinstance(value, (dict, list)):
        raise Fail(f"{name} must be a single value, not {type(value).__name__}")
    return str(value).strip() or None


def _shell_words(name, value):
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError as err:
            raise Fail(f"{name} = {value!r}: {err} (quote the flags as shell words)") from None
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    raise Fail(f"{name} must be a list of flags or one string (e.g. \"--constraint=ib --exclusive\")")


def _boolean(name, value):
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("1", "true", "yes", "on"):
        return True
    if str(value).lower() in ("0", "false", "no", "off"):
        return False
    raise Fail(f"{name} = {value!r}: want true or false")


def _environment(name, value):
    if not isinstance(value, dict):
        raise Fail(f"{name} must be a map of VARIABLE: value")
    out = {}
    for k, v in value.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(k)):
            raise Fail(f"{name}.{safeio.excerpt(k)}: not a valid environment variable name")
        if isinstance(v, (dict, list)):
            raise Fail(f"{name}.{k}: want a single value (a string or a number), not a {type(v).__name__}")
        out[str(k)] = "" if v is None else (str(v).lower() if isinstance(v, bool) else str(v))
    return out


def is_mpi_name(text):
    """openmpi, mpich, or the shape of an installation name (<kind>-<version>)."""
    return text in LIBRARIES or bool(NAME_RE.fullmatch(text))


def _mpi(name, value):
    if not is_mpi_name(str(value)):
        raise Fail(f"{name} = {value!r}: use openmpi, mpich or an installation name (bench/collmpi list)")
    return str(value)


_CHECKS = {"mpi": _mpi, "time": _slurm_time, "str": _single_text, "words": _shell_words, "bool": _boolean, "env": _environment}


def check_value(key, kind, value, where):
    """Validate one slurm setting (where: 'slurm.' for the config, '--' for an option); returns
    the normalised value, None when unset."""
    if value is None:
        return None
    name = f"{where}{key}" if where != "--" else "--" + key.replace("_", "-")
    if kind in ("posint", "nonnegint"):
        return _whole_number(key, name, value, kind)
    if isinstance(kind, tuple):
        if str(value) not in kind:
            raise Fail(f"{name} = {value!r}: use one of {', '.join(kind)}")
        return str(value)
    return _CHECKS[kind](name, value)


def _check_keys(section):
    for key in section:
        if key not in SCHEMA:
            near = difflib.get_close_matches(str(key), SCHEMA.keys(), n=1)
            hint = f"did you mean slurm.{near[0]}?" if near else f"valid keys: {', '.join(SCHEMA)}"
            raise Fail(f"config slurm.{key} is not a known key ({hint})")


def resolve_slurm(section, cli):
    """Merge defaults < config `slurm:` section < command-line options; validate everything."""
    if section is None:
        section = {}
    if not isinstance(section, dict):
        raise Fail("config slurm: must be a map of settings (see slurm/README.md for the keys)")
    _check_keys(section)
    out = {}
    for key, (kind, default, _) in SCHEMA.items():
        value = check_value(key, kind, section.get(key), "slurm.")
        if cli.get(key) is not None:
            value = check_value(key, kind, cli[key], "--")
        out[key] = default if value is None else value
        if isinstance(out[key], (list, dict)):
            out[key] = type(out[key])(out[key])
    return out


def _slurm_override(item, key, value):
    sub = key[len("slurm."):]
    if not sub or "." in sub:
        raise Fail(f"--set {item!r}: give one slurm key, e.g. --set slurm.throttle=4")
    where = f"--set {safeio.excerpt(item)!r}"
    return sub, (safeio.parse_yaml(value, where) if value.strip() else None)


def split_sets(sets):
    """--set KEY=VALUE list -> (slurm overrides {key: value}, collbench --set strings)."""
    slurm, bench = {}, []
    for item in sets or []:
        if "=" not in item:
            raise Fail(f"--set {item!r}: want KEY=VALUE (e.g. --set timing.reps=50 or --set slurm.time=00:20:00)")
        key, value = item.split("=", 1)
        key = key.strip()
        if key == "slurm" or key.startswith("slurm."):
            sub, parsed = _slurm_override(item, key, value)
            slurm[sub] = parsed
        else:
            bench.append(f"{key}={value}")
    return slurm, bench


def parse_mpis(text):
    """--mpi 'openmpi,mpich' -> ['openmpi', 'mpich'] (installation names too: 'openmpi-4.1.4,openmpi-5.0.7');
    None (not given) -> [None]."""
    if text is None:
        return [None]
    mpis = [m.strip() for m in text.split(",") if m.strip()]
    for m in mpis:
        if not is_mpi_name(m):
            raise Fail(f"--mpi {m}: use openmpi or mpich (or openmpi,mpich for one array per library), or "
                       "installation names such as openmpi-5.0.7 (bench/collmpi list)")
    if len(set(mpis)) != len(mpis) or not mpis:
        raise Fail(f"--mpi {text}: name each library once")
    return mpis


def build_dir_for(values, mpi, single):
    """--build-dir DIR (one library) or --build-dir LIB=DIR (repeatable, one per library)."""
    plain = [v for v in values or [] if "=" not in v]
    keyed = dict(v.split("=", 1) for v in values or [] if "=" in v)
    for lib in keyed:
        if not is_mpi_name(lib):
            raise Fail(f"--build-dir {lib}=...: use openmpi=DIR, mpich=DIR or INSTALLATION=DIR")
    if plain and not single:
        raise Fail("--build-dir DIR names one build: with several libraries use --build-dir openmpi=DIR "
                   "--build-dir mpich=DIR")
    if mpi in keyed:
        return keyed[mpi]
    return plain[-1] if plain else None


def sbatch_flags(s):
    """sbatch flags of the resolved settings: partition, account, qos, then sbatch_extra."""
    flags = []
    for key in ("partition", "account", "qos"):
        if s[key]:
            flags.append(f"--{key}={s[key]}")
    return flags + list(s["sbatch_extra"])


def point_text(p):
    """One line per point, from collbench's dry-run CSV row."""
    shape = (f"p={p.get('p')} q={p.get('q')} ka={p.get('ka')} kb={p.get('kb')}" if p.get("neighborhood", "") == ""
             else f"{p.get('neighborhood')} dims={p.get('dims')}")
    setting = f"[{p['setting']}] " if p.get("setting") else ""
    return (f"{setting}{p.get('collective')}/{p.get('algorithm')} {p.get('placement')} {shape} "
            f"size={p.get('msg_bytes')}")

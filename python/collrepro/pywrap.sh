# shellcheck shell=bash
# Sourced by the bash wrappers of collrepro's Python commands (analysis/analyze, interpose/colltune):
#   source "<repo>/python/collrepro/pywrap.sh"; collrepro_exec_python PROG MODULE "$@"
# It puts <repo>/python on the import path and execs `python3 -m MODULE "$@"` with the first
# interpreter that has pandas, matplotlib, scipy and numpy: $COLLREPRO_PYTHON, then Debian's
# /usr/bin/python3, then `python3` on PATH (a pyenv one usually lacks them). With none it prints
# one line and exits 5 (environment: a dependency is missing).

collrepro_exec_python() {
    local prog=$1 module=$2 py python_dir
    shift 2
    python_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    # find_spec checks without importing (importing them all takes seconds).
    local check='import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in ("pandas", "matplotlib", "scipy", "numpy")))'
    for py in "${COLLREPRO_PYTHON:-}" /usr/bin/python3 python3; do
        [[ -n "$py" ]] || continue
        command -v "$py" >/dev/null 2>&1 || continue
        if "$py" -c "$check" >/dev/null 2>&1; then
            export PYTHONPATH="$python_dir${PYTHONPATH:+:$PYTHONPATH}"
            export MPLBACKEND=Agg
            exec "$py" -m "$module" "$@"
        fi
    done
    echo "$prog: no Python interpreter with pandas, matplotlib, scipy and numpy" \
         "(tried ${COLLREPRO_PYTHON:+$COLLREPRO_PYTHON, }/usr/bin/python3, python3);" \
         "install the Debian packages: apt-get install python3-pandas python3-matplotlib" \
         "python3-scipy python3-numpy python3-yaml" >&2
    exit 5
}

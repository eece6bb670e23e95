"""A standalone C reproducer of a fuzz finding: fuzz/intercase.c with the case compiled in
(FUZZ_CASE), behind a comment that says what failed and how to build and run it. Pure: text in,
text out."""

from . import cases


def reproducer(source, case, finding):
    """The reproducer's text. `finding`: installation, version, target, outcome, detail."""
    line = cases.to_line(case)
    target = finding["target"]
    if target == "native":
        how = f"mpirun -n {case['np']} ./repro"
        door = "the MPI library's own call (no interposition)"
    else:
        force = "" if target == "defaults" else f" -x COLLREPRO_PMPI_FORCE={target}"
        how = f"mpirun -n {case['np']} -x LD_PRELOAD=/path/to/libcollrepro_pmpi.so{force} ./repro"
        door = ("collrepro's PMPI library under its defaults" if target == "defaults"
                else f"collrepro's algorithm {target}, forced in its PMPI library")
    head = "\n".join([
        f"/* collrepro fuzz finding {finding['id']}: {finding['outcome']} on {finding['installation']}",
        f"   ({finding['version']}), through {door}.",
        f"   {cases.describe(case)}",
        f"   What it printed: {finding['detail'][:300].replace('*/', '* /')}",
        "",
        "   Build and run (MPICH: mpiexec, and -genv NAME VALUE for -x NAME=VALUE):",
        "     mpicc -o repro repro.c",
        f"     {how}",
        "   Exit 0 and 'intercase: ok' when the library is right; the case's words are explained",
        "   below, in the program's own header. */",
        f"#define FUZZ_CASE \"{line}\"",
        "",
    ])
    return head + source

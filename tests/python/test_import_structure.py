"""The Python package as a map: its rooms (folders) form layers, with no import circle.

Every import of every module is read with `ast`, those at module level and those inside a
function alike (an import moved into a function to dodge a circle is still an arrow). A module
is a node; a room is the folder a module lies in (collrepro/ itself is the base room). The
tests fail when

- an import circle appears between modules, or between rooms;
- anything under analysis/ imports, directly or through others, what starts programs or knows
  machines: the launcher (launch/), the installations registry, Slurm, the emulated cluster.

`python3 tests/python/test_import_structure.py` prints the map: rooms by floor (a room's floor
is one above the highest room it imports), the arrows between rooms, and the circles. No
import runs: the package is only parsed. About 1 s.
"""

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "collrepro"
ROOT = PACKAGE.name
# What analysis/ must never reach: what launches programs or knows machines.
LAUNCHING = ("collrepro.launch", "collrepro.installations", "collrepro.slurm", "collrepro.cluster")


def module_names(package=PACKAGE):
    """{dotted module name: path} of every module of the package (a package is its __init__)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _known(name, modules):
    """The module an imported name lives in: the longest known prefix of it, or None."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node, module, is_package, modules):
    """The package's modules one import statement names."""
    if isinstance(node, ast.Import):
        return {_known(alias.name, modules) for alias in node.names}
    base = node.module or ""
    if node.level:
        here = module.split(".") if is_package else module.split(".")[:-1]
        here = here[:len(here) - node.level + 1]
        base = ".".join(here + ([base] if base else []))
    found = set()
    for alias in node.names:  # `from pkg import mod` names the module; `from mod import f` the module
        found.add(_known(f"{base}.{alias.name}", modules) if f"{base}.{alias.name}" in modules
                  else _known(base, modules))
    return found


def imports(modules=None):
    """{module: the package's modules it imports, anywhere in its text}; a module's own package
    (__init__) imported implicitly by Python is not an arrow, only an import that names it."""
    modules = modules or module_names()
    graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= _targets(node, module, path.name == "__init__.py", modules)
        graph[module] = {m for m in found if m and m != module}
    return graph


def circles(graph):
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def room_of(module, modules):
    """The folder a module lies in: a package's __init__ is in its own folder."""
    path = modules[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def rooms(graph, modules):
    """{room: the other rooms its modules import}."""
    arrows = defaultdict(set)
    for module, targets in graph.items():
        here = room_of(module, modules)
        arrows[here]  # a room that imports no other room is still a room
        arrows[here] |= {room_of(t, modules) for t in targets} - {here}
    return dict(arrows)


def floors(room_graph):
    """{room: floor}: 0 for a room that imports no other, else one above the highest it imports
    (defined when there is no circle between rooms)."""
    floor = {}

    def of(room, seen=()):
        if room not in floor:
            if room in seen:
                raise ValueError(f"circle through {room}")
            floor[room] = 1 + max((of(r, seen + (room,)) for r in room_graph[room]), default=-1)
        return floor[room]

    for room in room_graph:
        of(room)
    return floor


def reach(graph, start):
    """Every module `start` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_no_import_circle_between_modules():
    found = circles(imports())
    assert not found, "import circles (module level or inside functions): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_no_import_circle_between_rooms():
    modules = module_names()
    found = circles(rooms(imports(modules), modules))
    assert not found, "rooms that import each other: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_analysis_imports_nothing_that_launches():
    graph = imports()
    wrong = {}
    for module in graph:
        if module.startswith(f"{ROOT}.analysis"):
            bad = sorted(m for m in reach(graph, module) if m.startswith(LAUNCHING))
            if bad:
                wrong[module] = bad
    assert not wrong, "analysis modules that reach launching code: " + "; ".join(
        f"{m} -> {', '.join(b)}" for m, b in sorted(wrong.items()))


# The simulation's stages, in order: a room imports only the rooms before it (and the rest of the
# package), never one after it.
SIM_STAGES = ("platforms", "running", "validation")


def test_the_simulation_stages_are_layers():
    modules = module_names()
    graph = imports(modules)
    rank = {f"{ROOT}.sim.{stage}": i for i, stage in enumerate(SIM_STAGES)}
    loose = sorted(m for m in modules if room_of(m, modules) == f"{ROOT}.sim" and m != f"{ROOT}.sim")
    assert not loose, f"modules of sim/ outside its stages: {loose}"
    wrong = sorted(f"{m} -> {t}" for m in graph for t in graph[m]
                   if room_of(m, modules) in rank and room_of(t, modules) in rank
                   and rank[room_of(t, modules)] > rank[room_of(m, modules)])
    assert not wrong, "a simulation stage imports a later one: " + "; ".join(wrong)


def test_the_cluster_takes_only_platforms_from_the_simulation():
    """collrepro.cluster reaches, directly or through others, no simulation module outside
    sim/platforms/ (the package's own sim/__init__ aside)."""
    modules = module_names()
    graph = imports(modules)
    allowed = (f"{ROOT}.sim.platforms", )
    wrong = sorted(f"{m} -> {t}" for m in graph if m.startswith(f"{ROOT}.cluster") for t in reach(graph, m)
                   if t.startswith(f"{ROOT}.sim.") and not t.startswith(allowed))
    assert not wrong, "the emulated cluster reaches beyond the simulation's platforms: " + "; ".join(wrong)


def test_the_walk_sees_function_level_imports(tmp_path):
    """The reader counts an import inside a function: a circle hidden that way is found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def f():\n    from . import a\n    return a\n")
    modules = module_names(package)
    assert circles(imports(modules)) == [["pkg.a", "pkg.b"]]


def report():
    modules = module_names()
    graph = imports(modules)
    room_graph = rooms(graph, modules)
    module_circles, room_circles = circles(graph), circles(room_graph)
    loose = sum(1 for m in modules if room_of(m, modules) == ROOT and m != ROOT)
    lines = [f"{len(modules)} modules, {loose} at the root ({ROOT}/), {len(room_graph)} rooms, "
             f"{sum(map(len, room_graph.values()))} arrows between rooms, "
             f"{len(module_circles)} module circles, {len(room_circles)} room circles"]
    if not room_circles:
        by_floor = defaultdict(list)
        for room, floor in floors(room_graph).items():
            by_floor[floor].append(room)
        lines.append(f"{len(by_floor)} floors:")
        for floor in sorted(by_floor):
            for room in sorted(by_floor[floor]):
                count = sum(1 for m in modules if room_of(m, modules) == room)
                lines.append(f"  {floor}  {room} ({count} modules) -> {', '.join(sorted(room_graph[room])) or '-'}")
    for c in module_circles + room_circles:
        lines.append("circle: " + " <-> ".join(c))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(report() + "\n")

"""The layer rule: no import circle among the package's modules, and no module imports
one above its layer. Imports inside functions count too: they hid the old circle
(views -> the kind modules -> views).

Modules are named by their dotted path inside the package (``views.dispatch``); a
package's own ``__init__`` is ``views.__init__``. A module's layer is that of the longest
entry of ``LAYERS`` it falls under: ``views.dispatch`` itself, else ``views``."""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

import tf_debug_repr

PACKAGE = Path(tf_debug_repr.__file__).parent
NAME = "tf_debug_repr"

# Lower first. A module imports only its own layer or below.
LAYERS: dict[str, set[str]] = {
    "core": {"core"},
    # what the program's steps left (hooks and records): the views read it, it reads no view
    "capture": {"gradients"},
    "dispatch": {"views.dispatch"},
    "kinds and features": {"views", "forensics", "viewer"},
    "catalog": {"catalog"},
    "hosts": {
        "hosts",
        "views.__init__",  # the view API as the hosts ask it; builds the catalog
    },
    # what runs the hosts: the plugin's start, the package's public calls, compiled code
    # run as Python (which asks the pydevd seam whether a client is there)
    "wiring": {"__init__", "__main__", "_expr", "activation", "eager"},
}
ENTRIES = {entry: i for i, entries in enumerate(LAYERS.values()) for entry in entries}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in ENTRIES:
            return ENTRIES[".".join(parts[:n])]
    return None


def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (examples are programs, not modules
    of the package's graph)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        # _pydevd_namespace is debugpy 1.6's path entry (pydevd_plugins), not a module
        # of the package's graph
        if "examples" in parts or parts[0] == "_pydevd_namespace":
            continue
        found[".".join(parts)] = path
    return found


def _package_of(module: str) -> list[str]:
    parts = module.split(".")
    return parts[:-1]  # views.dispatch -> views; views.__init__ -> views; __init__ -> []


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted name inside the package is: itself, or its package's __init__."""
    if name in modules:
        return name
    init = f"{name}.__init__" if name else "__init__"
    return init if init in modules else None


def _imports(module: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in it. Raises on an import
    of the package that names no module there (an old path, a typo)."""
    tree = ast.parse(modules[module].read_text(encoding="utf-8"))
    targets: list[str] = []  # dotted names inside the package, "" for the package itself
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(module)
                base = base[: len(base) - (node.level - 1)]
                base_name = ".".join(base + ([node.module] if node.module else []))
            elif node.module == NAME or (node.module or "").startswith(NAME + "."):
                base_name = node.module[len(NAME) + 1 :]
            else:
                continue
            for alias in node.names:  # from X import m: a module m of X, or a name of X
                sub = f"{base_name}.{alias.name}" if base_name else alias.name
                targets.append(sub if _resolve(sub, modules) else base_name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(NAME + "."):
                    targets.append(alias.name[len(NAME) + 1 :])
    found = set()
    for target in targets:
        resolved = _resolve(target, modules)
        assert resolved is not None, f"{module} imports {NAME}.{target}, which is no module"
        found.add(resolved)
    return found - {module}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: _imports(module, modules) for module in modules}


def test_every_module_has_a_layer():
    assert [m for m in _modules() if layer_of(m) is None] == []


def test_every_entry_names_modules():
    modules = set(_modules())
    unused = [e for e in ENTRIES if not any(m == e or m.startswith(e + ".") for m in modules)]
    assert unused == []


def test_no_import_circle():
    try:
        graphlib.TopologicalSorter(_graph()).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError(f"import circle: {' -> '.join(exc.args[1])}") from None


def test_no_module_imports_a_higher_layer():
    names = list(LAYERS)
    upward = [
        f"{module} ({names[layer_of(module)]}) imports {other} ({names[layer_of(other)]})"
        for module, imported in sorted(_graph().items())
        for other in sorted(imported)
        if layer_of(other) > layer_of(module)
    ]
    assert upward == []


def _room(module: str) -> str:
    """``views.models`` -> ``views``; a top-level module is a room of its own."""
    return module.split(".")[0] if "." in module else module


def test_no_circle_among_the_rooms_below_the_catalog():
    """Rooms, not only modules: below the catalog (which imports every kind, and the
    wiring above it) no rooms import each other in a circle (``views`` and ``gradients``
    once did: the gradient rows imported the dispatch, the model and tape views imported
    the capture)."""
    catalog = ENTRIES["catalog"]
    rooms: dict[str, set[str]] = {}
    for module, imported in _graph().items():
        if layer_of(module) >= catalog:
            continue
        rooms.setdefault(_room(module), set()).update(
            _room(other)
            for other in imported
            if _room(other) != _room(module) and layer_of(other) < catalog
        )
    assert {"core", "gradients", "views", "forensics", "viewer"} <= set(rooms)
    try:
        graphlib.TopologicalSorter(rooms).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError(f"rooms in a circle: {' -> '.join(exc.args[1])}") from None


def test_only_the_wiring_imports_the_catalog():
    importers = {m for m, imported in _graph().items() if "catalog" in imported}
    assert all(layer_of(m) == len(LAYERS) - 1 for m in importers), importers


def test_subpackage_inits_import_nothing_of_the_package():
    """Importing ``tf_debug_repr.views.tensors`` runs ``views/__init__``: the rooms' own
    ``__init__`` modules stay empty, so a module never pulls in its neighbours by the way.
    ``views`` is the one exception, the view API, which imports only the dispatch module
    and the core (the catalog through ``core.wiring``)."""
    graph = _graph()
    heavy = {
        m: sorted(imported)
        for m, imported in graph.items()
        if m.endswith(".__init__") and m != "views.__init__" and imported
    }
    assert heavy == {}
    assert all(
        other.startswith("core.") or other == "views.dispatch" for other in graph["views.__init__"]
    ), graph["views.__init__"]


def test_only_hosts_pydevd_reaches_pydevd():
    """One seam: pydevd's modules are imported, or looked up in ``sys.modules``, only under
    ``hosts/pydevd`` (the rest asks ``core.debugger``). The plugin module debugpy loads and
    debugpy 1.6's path entry are outside the package's graph."""
    pattern = re.compile(r"""(import\s+_?pydev|from\s+_?pydev|modules\.get\(\s*["']_?pydev)""")
    found = [
        f"{module}:{n}"
        for module, path in _modules().items()
        if not module.startswith("hosts.pydevd")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_every_patch_goes_through_patch_once():
    """One way to wrap someone else's code (``core/patching.patch_once``): no module sets
    ``__wrapped__`` or the mark by hand."""
    pattern = re.compile(r"""(\.__wrapped__\s*=|\._tf_debug_repr\s*=)""")
    found = [
        f"{module}:{n}"
        for module, path in _modules().items()
        if module != "core.patching"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


# The plan in docs/architecture.md ("Rooms and floors"), drawn from the same imports: a room
# is a folder of the package, each of hosts/' folders, hosts/' own modules together, or a
# module the layer rule gives a layer of its own (views/dispatch.py, views/__init__.py) or
# that stands at the top level. A room's floor is one above the highest room it imports.
ROOMS_BEGIN = "<!-- rooms: begin (python scripts/architecture_rooms.py --write) -->"
ROOMS_END = "<!-- rooms: end -->"
ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def room_of(module: str) -> str:
    parts = module.split(".")
    if module in ("views.dispatch", "views.__init__"):
        return f"views/{parts[1]}.py"
    if parts[0] == "hosts":
        return f"hosts/{parts[1]}/" if len(parts) > 2 else "hosts/*.py"
    return f"{parts[0]}/" if len(parts) > 1 else f"{module}.py"


def rooms_markdown() -> str:
    """The rooms, their floors and the arrows between them, as the block that stands between
    ``ROOMS_BEGIN`` and ``ROOMS_END`` in docs/architecture.md: a picture (mermaid) without
    the arrows that a path through other rooms already implies, and a table with every one."""
    graph = _graph()
    members: dict[str, set[str]] = {}
    arrows: dict[str, set[str]] = {}
    for module, imported in graph.items():
        room = room_of(module)
        members.setdefault(room, set()).add(module)
        arrows.setdefault(room, set()).update(room_of(o) for o in imported if room_of(o) != room)
    floors: dict[str, int] = {}
    for room in graphlib.TopologicalSorter(arrows).static_order():
        floors[room] = 1 + max((floors[o] for o in arrows.get(room, ())), default=0)

    def reach(room: str, skip: str) -> set[str]:
        seen: set[str] = set()
        todo = [o for o in arrows[room] if o != skip]
        while todo:
            other = todo.pop()
            if other not in seen:
                seen.add(other)
                todo.extend(arrows[other])
        return seen

    ids = {room: "r_" + re.sub(r"\W", "_", room) for room in floors}
    order = sorted(floors, key=lambda r: (-floors[r], r))
    lines = ["```mermaid", "flowchart TD"]
    for floor in sorted(set(floors.values()), reverse=True):
        lines.append(f'  subgraph floor{floor}["floor {floor}"]')
        lines += [f'    {ids[r]}["{r}"]' for r in order if floors[r] == floor]
        lines.append("  end")
    for room in order:
        for other in sorted(arrows[room], key=lambda r: (-floors[r], r)):
            if other not in reach(room, skip=other):  # not implied by a longer path
                lines.append(f"  {ids[room]} --> {ids[other]}")
    lines += ["```", "", "| floor | room | modules | imports (rooms) |", "|---|---|---|---|"]
    for room in order:
        names = ", ".join(f"`{r}`" for r in sorted(arrows[room], key=lambda r: (-floors[r], r)))
        lines.append(f"| {floors[room]} | `{room}` | {len(members[room])} | {names or '—'} |")
    return "\n".join(lines) + "\n"


def test_the_architecture_doc_shows_the_rooms_as_they_are():
    """docs/architecture.md's rooms, floors and arrows are those of the code's imports today;
    ``python scripts/architecture_rooms.py --write`` redraws them after a move."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert ROOMS_BEGIN in text and ROOMS_END in text
    shown = text.split(ROOMS_BEGIN, 1)[1].split(ROOMS_END, 1)[0].strip("\n") + "\n"
    assert shown == rooms_markdown(), "run python scripts/architecture_rooms.py --write"

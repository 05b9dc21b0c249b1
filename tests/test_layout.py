"""The package's import graph points one way: surfaces -> (ingest job, measurement tools) ->
library core, and has no circle, between layers or inside one. Every import is read from the
source, lazy ones inside functions included: a function-level import that closes a circle only
hides it."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SURFACES = {"finrag.cli", "finrag.ingest.cli", "app"}
ENTRY_POINTS = {"finrag.__main__", "finrag.ingest.__main__", "ingest.__main__"}


def _module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _graph(root: Path = REPO) -> dict[str, set[str]]:
    files = [*root.glob("finrag/**/*.py"), root / "app.py", *root.glob("ingest/*.py")]
    return {_module_name(f, root): _imports(f) for f in files if f.exists()}


def _edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """module -> the modules of this repository it imports (a name that is an attribute, not a
    module, is dropped: `from finrag.index import Index` is an edge to finrag.index)."""
    return {m: {n for n in names if n in graph and n != m} for m, names in graph.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import each other round a circle (strongly connected
    components of two or more modules, Tarjan's algorithm), each sorted, in sorted order."""
    edges = _edges(graph)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for n in sorted(edges[m]):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on_stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            component = []
            while True:
                n = stack.pop()
                on_stack.discard(n)
                component.append(n)
                if n == m:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return sorted(circles)


def _layer(module: str) -> str:
    if module in SURFACES or module in ENTRY_POINTS or module.startswith("finrag.commands"):
        return "surface"
    for layer in ("finrag.ingest", "finrag.measure"):
        if module == layer or module.startswith(layer + "."):
            return layer
    if module == "finrag" or module.startswith("finrag."):
        return "core"
    return "outside"


# what each layer may import, besides itself and third-party packages
ALLOWED = {
    "core": {"core"},
    "finrag.ingest": {"core", "finrag.ingest"},
    "finrag.measure": {"core", "finrag.ingest", "finrag.measure"},
    "surface": {"core", "finrag.ingest", "finrag.measure", "surface"},
}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    upward = []
    for module, imported in sorted(graph.items()):
        layer = _layer(module)
        for name in sorted(imported):
            target = _layer(name)
            if name.split(".")[0] == "ingest" or name.split(".")[0] == "app":
                upward.append(f"{module} imports {name} (the top-level entry, not a library)")
            elif target != "outside" and target not in ALLOWED[layer]:
                upward.append(f"{module} ({layer}) imports {name} ({target})")
            elif name in SURFACES and module not in ENTRY_POINTS:
                upward.append(f"{module} imports the surface {name}")
    return upward


def test_no_import_points_upward():
    assert upward_imports(_graph()) == []


def test_no_import_circle():
    assert import_circles(_graph()) == []


def test_only_the_app_imports_streamlit():
    users = sorted(m for m, names in _graph().items() if any(n.split(".")[0] == "streamlit"
                                                             for n in names))
    assert users == ["app"]


def _plant(root: Path, files: dict[str, str]) -> dict[str, set[str]]:
    """A throwaway tree of modules under `root` (paths relative to it), read as the repo is."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return _graph(root)


def test_the_check_sees_an_upward_import(tmp_path):
    """A core module importing the ingest job inside a function: reported, naming both."""
    graph = _plant(tmp_path, {
        "finrag/__init__.py": "",
        "finrag/search.py": "def f():\n    from finrag.ingest.build import build\n",
        "finrag/ingest/__init__.py": "",
        "finrag/ingest/build.py": "from finrag.search import f\n",
    })
    upward = upward_imports(graph)
    assert "finrag.search (core) imports finrag.ingest.build (finrag.ingest)" in upward
    assert {line.split()[0] for line in upward} == {"finrag.search"}


def test_the_check_sees_a_circle_inside_a_layer(tmp_path):
    """Three core modules round a circle (one lazy import closes it; the layer rule allows every
    edge of it) and a two-module circle in ingest through `from package import module`: both
    are found, and nothing else; breaking one edge breaks that circle."""
    files = {
        "finrag/__init__.py": "",
        "finrag/index.py": "from finrag.remote import RemoteIndex\n",
        "finrag/remote.py": "import finrag.store\n",
        "finrag/store.py": "def f():\n    from finrag.index import Index\n",
        "finrag/search.py": "from finrag.index import Index\n",  # into the circle, not on it
        "finrag/ingest/__init__.py": "",
        "finrag/ingest/build.py": "from finrag.ingest import parallel\n",
        "finrag/ingest/parallel.py": "def g():\n    from finrag.ingest.build import _read_one\n",
    }
    graph = _plant(tmp_path, files)
    assert upward_imports(graph) == []  # what the layer rule alone cannot see
    assert import_circles(graph) == [["finrag.index", "finrag.remote", "finrag.store"],
                                     ["finrag.ingest.build", "finrag.ingest.parallel"]]
    files["finrag/store.py"] = "def f():\n    pass\n"
    assert import_circles(_plant(tmp_path, files)) == [
        ["finrag.ingest.build", "finrag.ingest.parallel"]]

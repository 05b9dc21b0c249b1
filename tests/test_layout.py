"""The package's import graph points one way: surfaces -> (ingest job, measurement tools) ->
library core. Every import is read from the source, lazy ones inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SURFACES = {"finrag.cli", "finrag.ingest.cli", "app"}
ENTRY_POINTS = {"finrag.__main__", "finrag.ingest.__main__", "ingest.__main__"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
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


def _graph() -> dict[str, set[str]]:
    files = [*REPO.glob("finrag/**/*.py"), REPO / "app.py", *REPO.glob("ingest/*.py")]
    return {_module_name(f): _imports(f) for f in files}


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


def test_no_import_points_upward():
    upward = []
    for module, imported in _graph().items():
        layer = _layer(module)
        for name in imported:
            target = _layer(name)
            if name.split(".")[0] == "ingest" or name.split(".")[0] == "app":
                upward.append(f"{module} imports {name} (the top-level entry, not a library)")
            elif target != "outside" and target not in ALLOWED[layer]:
                upward.append(f"{module} ({layer}) imports {name} ({target})")
            elif name in SURFACES and module not in ENTRY_POINTS:
                upward.append(f"{module} imports the surface {name}")
    assert upward == []


def test_only_the_app_imports_streamlit():
    users = sorted(m for m, names in _graph().items() if any(n.split(".")[0] == "streamlit"
                                                             for n in names))
    assert users == ["app"]


def test_the_check_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from finrag.ingest.build import build\n")
    assert "finrag.ingest.build" in _imports(bad)
    assert "finrag.ingest" not in ALLOWED[_layer("finrag.search")]

"""The package's layers, as docs/architecture.md draws them: imports run one way, and never in a
circle (function-local imports count: they are cycles all the same, only deferred).

    cli -> analysis -> runs -> scenario -> engine -> kernel -> components

The reference engine uses components and illegal (the reasons) only, and what compares the two engines (scenarios, traces,
the benchmark) may use it; any layer may use ``samsim.stats``, statistics as plain functions of
arrays, which import nothing of samsim.

The compiled layer (``samsim/kernel/``) imports nothing outside it but ``samsim.components`` and
``samsim.illegal``, so
that the hash of those files (``samsim.kernel.jit.SOURCES``) covers every source compiled code can
depend on; the reference engine, a second implementation written apart from the kernel, imports
nothing compiled.
"""

import ast
import subprocess
import sys
from pathlib import Path

import samsim
from samsim.kernel import jit

PACKAGE = Path(samsim.__file__).parent
#: Layer of each top-level part of the package, lowest first; a module may import its own layer
#: and those below, except that the kernel and the reference engine never import each other.
LAYERS = {"stats": 0, "components": 0, "illegal": 0, "kernel": 1, "reference": 1, "engine": 2, "scenario": 3, "runs": 4,
          "analysis": 5, "cli": 6}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Module -> the samsim modules it imports (``from samsim.x import y`` counts ``samsim.x.y``
    when that is a module, else ``samsim.x``)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        found = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                    + ([base] if base else []))
                for a in node.names:
                    found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def test_imports_run_one_way():
    wrong = []
    for module, imported in _imports().items():
        part = _part(module)
        if part == "__init__":
            assert not imported, "samsim/__init__.py names its API lazily, importing nothing"
            continue
        for other in imported:
            target = _part(other)
            if target == "__init__":
                continue  # ``import samsim`` for its version: the package's top imports nothing
            below = LAYERS[target] < LAYERS[part] or target == part
            apart = {part, target} == {"kernel", "reference"} or (
                LAYERS[part] == LAYERS[target] == 0 and part != target)
            if not below or apart:
                wrong.append(f"{module} ({part}) imports {other} ({target})")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_import_cycles():
    graph = _imports()
    state: dict[str, int] = {}
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, "\n".join(cycles)


def test_the_cache_key_covers_what_compiled_code_imports():
    """Every samsim module the kernel imports lies in the hashed sources."""
    graph = _imports()
    hashed = {_module_name(p) for source in jit.SOURCES
              for p in (source.rglob("*.py") if source.is_dir() else [source])}
    reached, todo = set(), [m for m in graph if _part(m) == "kernel"]
    while todo:
        m = todo.pop()
        if m not in reached:
            reached.add(m)
            todo.extend(graph[m])
    assert reached <= hashed, sorted(reached - hashed)
    assert all(_part(m) in ("kernel", "components", "illegal") for m in hashed)


def test_the_reference_engine_imports_nothing_compiled():
    code = ("import sys, samsim.reference; "
            "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('samsim.kernel')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

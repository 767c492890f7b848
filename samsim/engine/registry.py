"""The strategy registry: finding, checking, naming and parametrising strategies.

A strategy is a Python module (``strategies/greedy.py``, or any file or module a user names) with a
one-paragraph docstring, a ``PARAMS`` dict of named numeric parameters and their defaults, a
``LIMITS`` dict with the inclusive range of each (a value outside it is refused, so a typo such as
``margin=1e308`` cannot quietly play a meaningless game), and up to six compiled decision
functions, one per decision of the game (``samsim.kernel.contract``: what they are given)::

    card(comp, view, params, rng, out)       price card, and the RECALL tile (cards taken back first)
    switch(comp, view, params, rng, out)     the SWITCH tile, after the reveal
    build(comp, view, params, rng, out)      the tile offered (kind, and the room a suite covers)
    send_home(comp, view, params, rng, out)  the SEND_HOME tile, at the start of a tourist turn
    take(comp, view, params, rng, out)       one group, which of its tourists, which rooms
    holiday(comp, view, params, rng, out)    which tourists a Staff holiday sends home

A function a strategy leaves out is inherited from ``samsim.kernel.moves`` (sensible default play),
so a pricing idea is one short function.

Dispatch (measured, README "How seats reach their strategy"): each decision function is compiled
on its own into a C entry point, cached on disk under the hash of the strategy's source files, and
the engine, compiled once for every line-up, calls the seat's entry point by address
(``samsim.kernel.abi``). So an edited strategy never runs stale code, and a new one costs seconds of
compile, not a new engine. Nothing here is compiled: this module is plain Python.
"""

from __future__ import annotations

import ast
import dis
import hashlib
import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numba
import numpy as np

from samsim.kernel import abi, moves
from samsim.kernel.contract import MAX_PARAMS, STAGES


class StrategyError(ValueError):
    """An unknown strategy or parameter, or a strategy file that breaks the contract."""


# ----------------------------------------------------------------------------- registry

@dataclass(frozen=True)
class StrategyInfo:
    """A loaded strategy module, checked against the contract."""

    name: str  # the module's name, or name@<hash8> where it shadows a built-in with other code
    module: ModuleType
    defaults: dict[str, float]
    limits: dict[str, tuple[float, float]]  # LIMITS: every parameter's range, inclusive
    source_hash: str  # of the module's file and the Python files beside it (helpers it may import)
    whole: frozenset[str] = frozenset()  # parameters whose default is written as a whole number
    #: those files' names and contents, read when the strategy was loaded: what a cluster's
    #: workers load it from (``shipped``), even if the file has since moved or changed
    files: tuple[tuple[str, bytes], ...] = ()

    @property
    def idea(self) -> str:
        return " ".join((self.module.__doc__ or "").split())

    def function(self, stage: str):
        return getattr(self.module, stage, None) or getattr(moves, f"default_{stage}")

    @property
    def where(self) -> str:
        """The name ``load_strategy`` finds this strategy by, in any process with the same working
        directory: its file for a strategy loaded from a file, else its module."""
        if self.module.__name__.startswith(_USER_PACKAGE):
            return self.module.__file__
        return self.module.__name__

    def stage_sources(self, stage: str) -> str:
        """What the stage's compiled function depends on besides samsim (whose sources key the
        whole cache): the strategy's files, unless the stage falls back to samsim.kernel.moves."""
        return self.source_hash if hasattr(self.module, stage) else "samsim"

    def addresses(self) -> list[int]:
        """The entry point of each stage (STAGES order), compiled or loaded from the cache."""
        out = []
        for stage in STAGES:
            try:
                out.append(abi.address(self.function(stage), self.stage_sources(stage)))
            except numba.core.errors.NumbaError as exc:
                where, reason = _compile_error(str(exc), self.module, self.function(stage))
                raise StrategyError(f"strategy {self.name!r}: {stage} does not compile{where}: "
                                    f"{reason}") from exc
        return out

    def cached(self) -> bool:
        return all(abi.is_cached(self.function(stage), self.stage_sources(stage)) for stage in STAGES)


@dataclass(frozen=True)
class Strategy:
    """A strategy with its parameter values: what one seat plays."""

    info: StrategyInfo
    params: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.info.name

    def spec(self) -> str:
        """The text that names this strategy and its non-default parameters, e.g. ``undercut(margin=2)``."""
        changed = [f"{k}={_fmt(v)}" for k, v in self.params.items() if v != self.info.defaults[k]]
        return f"{self.name}({', '.join(changed)})" if changed else self.name

    def vector(self) -> np.ndarray:
        out = np.zeros(MAX_PARAMS)
        out[:len(self.params)] = list(self.params.values())
        return out


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _shown(path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    path = Path(path)
    try:
        return f"./{path.resolve().relative_to(Path.cwd().resolve())}"
    except ValueError:
        return str(path)


#: Where Numba says an error is: ``File "x.py", line 12:`` and ``... at /abs/x.py (12)``.
_NUMBA_WHERE = re.compile(r'File "([^"]+)", line (\d+)|\bat (\S+\.py) \((\d+)\)')
_NUMBA_NOISE = ("Failed in ", "During:", "- Resolution failure", "There are ", "raised from",
                "<source elided>")


def _compile_error(text: str, module: ModuleType, fn=None) -> tuple[str, str]:
    """(" (file, line N)", reason) for Numba's error ``text`` about ``fn`` of ``module``: the place
    in the strategy's own files (its module and the helpers beside it; Numba's first mention is
    the innermost, where the error is), else its module file; and the line of the message that
    says what is wrong, not the pipeline stage Numba's first line names."""
    file = getattr(module, "__file__", None)
    where = ""
    if file:
        own = {p.resolve() for p in Path(file).resolve().parent.glob("*.py")}
        where = f" ({_shown(file)})"
        places = [(m.group(1), m.group(2)) if m.group(1) else m.groups()[2:]
                  for m in _NUMBA_WHERE.finditer(text)]
        undefined = re.search(r"NameError: name '(\w+)' is not defined", text)
        if undefined:  # Numba names no place, or the call of the helper that uses the name
            places.insert(0, _loaded_at(undefined.group(1), module, fn))
        for path, line in places:
            try:
                found = Path(os.path.abspath(path)).resolve() if path else None
            except OSError:
                continue
            if found in own:
                where = f" ({_shown(found)}, line {line})"
                break
    if "NRT required but not enabled" in text or "Only accept returning of array passed" in text:
        return where, ("it allocates memory (a new array, list or string), which a decision "
                       "function may not: write into out, or keep state in view.memo")
    lines = text.splitlines()
    in_source = False
    for k, line in enumerate(lines):
        if line.startswith("File "):  # then the source excerpt, up to a blank line
            in_source = True
            continue
        if in_source or not line.strip() or line[0].isspace() or line.startswith(_NUMBA_NOISE) \
                or line.strip() == "None":
            in_source = in_source and bool(line.strip())
            continue
        if line.rstrip().endswith("found for signature:"):
            signature = next((rest.strip()[3:].strip() for rest in lines[k + 1:]
                              if rest.strip().startswith(">>>")), None)
            if signature:
                return where, f"Numba has no implementation of {signature}"
        return where, line.strip()
    return where, (text.strip().splitlines() or ["(no message)"])[0]


def _loaded_at(name: str, module: ModuleType, fn=None) -> tuple[str | None, int | None]:
    """(file, line) of the first use of the global ``name`` in ``fn``, else in a compiled function
    of ``module``; (None, None) if none uses it."""
    funcs = [getattr(fn, "py_func", fn)] if fn is not None else []
    funcs += [v.py_func for v in vars(module).values()
              if isinstance(v, numba.core.registry.CPUDispatcher)
              and v.py_func.__module__ == module.__name__]
    for func in funcs:
        for ins in dis.get_instructions(func):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == name \
                    and ins.positions and ins.positions.lineno:
                return func.__code__.co_filename, ins.positions.lineno
    return None, None


def _read_sources(path: Path) -> tuple[tuple[str, bytes], ...]:
    """A strategy's file and the Python files beside it (helpers it may import), by name."""
    return tuple((sibling.name, sibling.read_bytes()) for sibling in sorted(path.parent.glob("*.py")))


def _hash_sources(files: tuple[tuple[str, bytes], ...]) -> str:
    digest = hashlib.sha256()
    for name, text in files:
        digest.update(name.encode() + b"\0" + text)
    return digest.hexdigest()[:16]


def _check_module(name: str, module: ModuleType) -> StrategyInfo:
    where = getattr(module, "__file__", name)
    defaults = getattr(module, "PARAMS", {})
    if not isinstance(defaults, dict) or not all(
            isinstance(k, str) and k.isidentifier() and isinstance(v, (int, float))
            and not isinstance(v, bool) for k, v in defaults.items()):
        raise StrategyError(f"strategy {name!r} ({where}): PARAMS must be a dict of "
                            f"name -> number, e.g. PARAMS = {{'margin': 1}}")
    if len(defaults) > MAX_PARAMS:
        raise StrategyError(f"strategy {name!r} ({where}): at most {MAX_PARAMS} parameters")
    if not (module.__doc__ or "").strip():
        raise StrategyError(f"strategy {name!r} ({where}): needs a docstring saying its idea")
    limits = _check_limits(name, where, defaults, getattr(module, "LIMITS", {}))
    defined = [s for s in STAGES if hasattr(module, s)]
    if not defined:
        raise StrategyError(f"strategy {name!r} ({where}): defines none of the decision "
                            f"functions {', '.join(STAGES)}")
    for stage in defined:
        fn = getattr(module, stage)
        if not isinstance(fn, numba.core.registry.CPUDispatcher) and not numba.config.DISABLE_JIT:
            raise StrategyError(f"strategy {name!r} ({where}): {stage} must be compiled: decorate "
                                f"it with @samsim.kernel.contract.decision")
    file = getattr(module, "__file__", None)
    files = _read_sources(Path(file)) if file else ()
    source_hash = _hash_sources(files) if file else "nofile"
    return StrategyInfo(_label(name, module, source_hash), module,
                        {k: float(v) for k, v in defaults.items()}, limits, source_hash,
                        frozenset(k for k, v in defaults.items() if isinstance(v, int)), files)


def _check_limits(name: str, where: str, defaults: dict, limits) -> dict[str, tuple[float, float]]:
    """Every parameter's range. Required, not optional: a parameter without one takes any
    number, so a slip (``margin=1e308``, a sign) plays games that mean nothing and look fine."""
    example = "LIMITS = {'margin': (0, 20)}"
    if not isinstance(limits, dict):
        raise StrategyError(f"strategy {name!r} ({where}): LIMITS must be a dict of parameter "
                            f"name -> (low, high), e.g. {example}")
    extra = sorted(set(limits) - set(defaults))
    if extra:
        raise StrategyError(f"strategy {name!r} ({where}): LIMITS names {extra[0]!r}, which is "
                            f"not in PARAMS")
    missing = [k for k in defaults if k not in limits]
    if missing:
        raise StrategyError(f"strategy {name!r} ({where}): parameter {missing[0]!r} has no range: "
                            f"add LIMITS = {{{missing[0]!r}: (low, high)}} (inclusive, holding its "
                            f"default {_fmt(defaults[missing[0]])})")
    out = {}
    for k, pair in limits.items():
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair)
                and pair[0] <= defaults[k] <= pair[1]):
            raise StrategyError(f"strategy {name!r} ({where}): LIMITS[{k!r}] must be a "
                                f"(low, high) pair of numbers holding the default "
                                f"{_fmt(defaults[k])}, got {pair!r}")
        out[k] = (float(pair[0]), float(pair[1]))
    return out


def _label(name: str, module: ModuleType, source_hash: str) -> str:
    """The name runs and reports give the strategy: ``name``, unless its file is named after a
    built-in but holds other code; then ``name@<hash8>``, so that its games are never labelled,
    reported or pooled as the built-in's (nor as an earlier version of the same file)."""
    file = getattr(module, "__file__", None)
    if not file or name not in library_names() or module.__name__ == f"strategies.{name}":
        return name
    builtin = _library_dir() / f"{name}.py"
    if Path(file).resolve() == builtin.resolve() or Path(file).read_bytes() == builtin.read_bytes():
        return name  # a copy of the built-in: the same code, the same name
    return f"{name}@{source_hash[:8]}"


def _library_dir() -> Path:
    """The built-in library's folder. Not ``strategies.__path__``: run from a folder that has its
    own ``strategies/`` (the way users add theirs), Python may merge both into that path."""
    return Path(importlib.util.find_spec("strategies.random").origin).parent


def library_names() -> list[str]:
    """The strategies of samsim's own library, by name."""
    return sorted(m.name for m in pkgutil.iter_modules([str(_library_dir())])
                  if not m.name.startswith("_"))


def _local_dir() -> Path | None:
    """``./strategies`` of the working directory, when it is not the library itself."""
    here = Path.cwd() / "strategies"
    return here if here.is_dir() and here.resolve() != _library_dir().resolve() else None


def available() -> dict[str, str]:
    """Strategy name -> where it comes from: the built-in library, then ``./strategies/*.py``."""
    found = {name: f"strategies.{name}" for name in library_names()}
    local = _local_dir()
    if local:
        library = _library_dir()
        for path in sorted(local.glob("*.py")):
            if path.name.startswith("_"):
                continue
            builtin = library / path.name
            if path.stem in found and builtin.is_file() and builtin.read_bytes() == path.read_bytes():
                continue  # a copy of the built-in (run from a samsim checkout): the built-in, so
                # that one compiled engine serves both
            found[path.stem] = str(path)
    return found


_LOADED: dict[tuple[str, str], StrategyInfo] = {}
_USER_PACKAGE = "samsim_user_strategies."


def _load_file(path: Path) -> StrategyInfo:
    if not path.is_file():
        raise StrategyError(f"strategy file {path} does not exist")
    key = (str(path.resolve()), _hash_sources(_read_sources(path)))
    if key not in _LOADED:
        module_name = f"{_USER_PACKAGE}{path.stem}_{key[1]}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the user's file: say which and why, without our traceback
            del sys.modules[module_name]
            raise StrategyError(f"strategy file {path} failed to import: "
                                f"{type(exc).__name__}: {exc}{_moved_hint(exc)}") from exc
        _LOADED[key] = _check_module(path.stem, module)
    return _LOADED[key]


#: Where the strategy-writing modules of samsim 0.1 went when the package was layered (0.2).
_MOVED = {"samsim.strategy": "samsim.kernel.contract", "samsim.moves": "samsim.kernel.moves",
          "samsim.decisions": "samsim.kernel.decisions", "samsim.rng": "samsim.kernel.rng",
          "samsim.bits": "samsim.kernel.bits", "samsim.rules": "samsim.kernel.rules"}


def _moved_hint(exc: Exception) -> str:
    """A strategy written for samsim 0.1 imports modules that have moved: say where to."""
    missing = getattr(exc, "name", None) or ""
    for old, new in _MOVED.items():
        if missing == old or missing.startswith(old + "."):
            return f" ({old} is now {new}: README 'Write your own strategy')"
    return ""


def load_strategy(name: str) -> StrategyInfo:
    """A strategy by name (built-in or ``./strategies``), file path (``my/bot.py``) or module;
    ``greedy@1a2b3c4d``: the strategy found as ``greedy``, only if it is still that code."""
    if name.endswith(".py") or "/" in name or "\\" in name:
        return _load_file(Path(name))
    if "@" in name:
        return _load_pinned(name)
    where = available().get(name)
    if where is None and "." in name:
        where = name
    if where is None:
        raise StrategyError(f"unknown strategy {name!r}; known: {', '.join(available())} "
                            f"(or give a file path such as my_strategies/bot.py)")
    if where.endswith(".py"):
        return _load_file(Path(where))
    key = (where, "")
    if key not in _LOADED:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise StrategyError(f"strategy module {where!r} could not be imported: {exc}") from exc
        _LOADED[key] = _check_module(name.rsplit(".", 1)[-1], module)
    return _LOADED[key]


def _load_pinned(name: str) -> StrategyInfo:
    """``base@hash8``, the name of a file that shadows the built-in ``base``: the strategy found
    as ``base`` if its sources still have that hash. A name records code, not a file, so a run
    recorded under it is never resumed, compared or replayed with other code."""
    base, _, digest = name.partition("@")
    if not re.fullmatch(r"[0-9a-f]{8}", digest):
        raise StrategyError(f"{name!r}: after @ come the first 8 hex digits of the strategy's "
                            f"source hash, e.g. {base}@1a2b3c4d (samsim strategies shows them)")
    info = load_strategy(base)
    if info.name.rpartition("@")[2] == digest:
        return info
    if "@" in info.name:
        raise StrategyError(f"{name}: {_shown(info.module.__file__)} (or a file beside it) has "
                            f"changed since (now {info.name})")
    if base in library_names():
        raise StrategyError(f"{name}: no file here replaces the built-in {base} with that code "
                            f"({base} is now the built-in strategy); write {base!r} if the "
                            f"built-in is meant, or run from the folder holding that "
                            f"strategies/{base}.py")
    raise StrategyError(f"{name}: {base} is not named after a built-in strategy, so it has no "
                        f"@ name; write {base!r}")


def _number(node: ast.expr, where: str) -> float:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(node.operand, where)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    raise StrategyError(f"{where}: parameter values must be numbers")


def split_specs(text: str) -> list[str]:
    """``"random,undercut(margin=1, scarce=2),greedy"`` -> one spec per item (commas inside
    parentheses belong to the parameters)."""
    items, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    items.append(current.strip())
    return items


def parse_spec(spec: str | Strategy) -> Strategy:
    """``"undercut"`` or ``"undercut(margin=1)"`` (or a file path with parameters) -> Strategy."""
    if isinstance(spec, Strategy):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise StrategyError(f"a strategy must be named, e.g. 'greedy' or 'undercut(margin=1)'; "
                            f"got {spec!r}")
    text = spec.strip()
    name, given = text, {}
    if text.count("(") != text.count(")") or ("(" in text and not text.endswith(")")):
        raise StrategyError(f"{text!r}: write a strategy as name or name(param=value, ...)")
    if text.endswith(")") and "(" in text:
        name, args = text[:-1].split("(", 1)
        name = name.strip()
        try:
            call = ast.parse(f"f({args})", mode="eval").body
        except SyntaxError:
            raise StrategyError(f"{text!r}: write parameters as name=value, e.g. "
                                f"undercut(margin=1, scarce=0.5)") from None
        if call.args or any(k.arg is None for k in call.keywords):
            raise StrategyError(f"{text!r}: write parameters as name=value, e.g. undercut(margin=1)")
        names = [k.arg for k in call.keywords]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice:  # ast keeps both (only compiling a call would refuse it): refuse, not last-wins
            raise StrategyError(f"{text!r}: parameter {twice} is given twice")
        given = {k.arg: _number(k.value, text) for k in call.keywords}
    info = load_strategy(name)
    return with_params(info, given, text)


def with_params(info: StrategyInfo, given: dict, where: str | None = None) -> Strategy:
    where = where or info.name
    unknown = sorted(set(given) - set(info.defaults))
    if unknown:
        known = ", ".join(f"{k}={_fmt(v)}" for k, v in info.defaults.items()) or "none"
        raise StrategyError(f"{where}: {info.name} has no parameter {unknown[0]!r} "
                            f"(its parameters and defaults: {known})")
    for k, v in given.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not np.isfinite(v):
            raise StrategyError(f"{where}: parameter {k} must be a finite number, got {v!r}")
        if k in info.whole and not float(v).is_integer():
            # a count or a switch: 1.5 samples would play as 1 under a label saying 1.5
            raise StrategyError(f"{where}: parameter {k} takes whole numbers (its default is "
                                f"{_fmt(info.defaults[k])}), got {v!r}")
        lo, hi = info.limits[k]
        if not lo <= v <= hi:
            raise StrategyError(f"{where}: parameter {k} must be in {_fmt(lo)}..{_fmt(hi)}, got {v!r}")
    return Strategy(info, {k: float(given.get(k, v)) for k, v in info.defaults.items()})


# ----------------------------------------------------------------------------- shipping

def shipped(info: StrategyInfo) -> tuple:
    """How ``info`` travels to another process that may not share this one's disk: a built-in
    by its module name and source hash (the other process must hold the same library: a
    cluster checks that), any other strategy by its sources, as read when it was loaded."""
    if info.module.__name__ == f"strategies.{info.name}" and info.name in library_names():
        return ("library", info.module.__name__, info.source_hash)
    if not info.files:
        raise StrategyError(f"strategy {info.name!r} has no source file to send to other "
                            f"processes: write it in a file")
    return ("files", Path(info.module.__file__).stem, info.files, info.source_hash)


def unshipped(ref: tuple, folder: Path) -> StrategyInfo:
    """The strategy ``shipped`` made ``ref`` of, loaded here: a strategy that came by its
    sources is written under ``folder`` (in a subfolder named for their hash, so one written
    earlier is reused and its compiled code too) and loaded from there."""
    if ref[0] == "library":
        _, module, source_hash = ref
        info = load_strategy(module)
        if info.source_hash != source_hash:
            raise StrategyError(f"strategy {module} here has other sources ({info.source_hash}) "
                                f"than where the run started ({source_hash})")
        return info
    _, stem, files, source_hash = ref
    if _hash_sources(files) != source_hash:
        raise StrategyError(f"strategy {stem}: its sources arrived damaged")
    home = Path(folder) / f"{stem}-{source_hash}"
    if not (home / f"{stem}.py").is_file():
        tmp = home.with_name(f".{home.name}.{os.getpid()}.tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for name, text in files:
            (tmp / name).write_bytes(text)
        try:
            tmp.rename(home)
        except OSError:  # another process wrote it meanwhile: the same files
            for name, _ in files:
                (tmp / name).unlink()
            tmp.rmdir()
    return _load_file(home / f"{stem}.py")


def compile_entries(names: list[str]) -> None:
    """Compile the named strategies' entry points (what ``samsim.kernel.abi.precompile`` runs in
    another process)."""
    for name in names:
        load_strategy(name).addresses()

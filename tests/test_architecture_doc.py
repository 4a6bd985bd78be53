"""ARCHITECTURE.md matches the code: every file, folder, module, module attribute and class method it
names in code spans exists.

What counts as a name (in a `code span`, or a word of a fenced diagram that ends in a file
extension):

- a path with a slash (``src/backgammon/server/tables.py``, ``tests/rules/``): from the repository
  root or from ``src/backgammon/``;
- a bare file name (``app.js``, ``pyproject.toml``): a file of the web site, in
  ``src/backgammon/server/`` or its ``static/`` folder, or of the repository's root (the document
  names other files by their path);
- a dotted name from ``backgammon.`` (``backgammon.engine.search.rank_plays``): the longest module
  prefix is a module or package, and what follows is defined at the top of it;
- ``module.name`` (``protocol.play_from_steps``): some ``module.py`` under ``src/backgammon/``
  defines ``name`` at its top level;
- ``Class.method`` (``TableManager.act``): a class of that name under ``src/backgammon/`` defines
  ``method``, itself or through a base class defined there.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "backgammon"
SERVER = PACKAGE / "server"
DOC = ROOT / "ARCHITECTURE.md"
EXTENSIONS = (".py", ".js", ".md", ".sh", ".json", ".html", ".css", ".npz", ".toml", ".txt", ".xml")

_SPAN = re.compile(r"`([^`\n]+)`")
_FILE_WORD = re.compile(r"[\w./-]+\.(?:py|js|md|sh|json|html|css)\b")


def names_in(text: str) -> list[str]:
    """The names ``text`` mentions: its code spans, and the file names in its fenced blocks
    (a diagram's words), in order."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            found.extend(_FILE_WORD.findall(line))
        else:
            found.extend(_SPAN.findall(line))
    return found


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _top_level(path: Path) -> set[str]:
    """The names a module defines or imports at its top level."""
    names: set[str] = set()
    for node in _tree(path).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@functools.cache
def _classes() -> dict[str, list[ast.ClassDef]]:
    """Every class defined under ``src/backgammon``, by name."""
    found: dict[str, list[ast.ClassDef]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


def _has_member(cls: str, member: str, seen: frozenset[str] = frozenset()) -> bool:
    for node in _classes().get(cls, []):
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == member:
                return True
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id == member:
                return True
            if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == member for t in item.targets):
                return True
        for base in node.bases:
            name = base.value.id if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) else None
            name = base.id if isinstance(base, ast.Name) else name
            if name and name not in seen and _has_member(name, member, seen | {cls}):
                return True
    return False


def _module_file(dotted: str) -> Path | None:
    """The file of a module or package named ``backgammon.x.y``, if there is one."""
    path = ROOT / "src" / Path(*dotted.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def missing(name: str) -> str | None:
    """Why ``name`` names nothing that exists, or None when it does (or is no name of a file or module)."""
    name = re.sub(r"\(.*\)$", "", name.strip().rstrip(".,;:"))  # a call's arguments
    if " " in name or not name or name.startswith(("-", "$", "~")):
        return None  # a command line, an option, a placeholder
    if "/" in name and re.fullmatch(r"[\w./-]+", name):
        if name.startswith(("/", "http")) or "{" in name:
            return None  # a URL path of the web site, not a file
        if (ROOT / name).exists() or (PACKAGE / name).exists():
            return None
        return f"no file or folder {name}"
    if name.endswith(EXTENSIONS) and re.fullmatch(r"[\w.-]+", name):
        if name.count(".") > 1 and not name.startswith("."):
            pass  # e.g. a dotted module path ending in a name that looks like an extension: below
        elif any((folder / name).is_file() for folder in (SERVER, SERVER / "static", ROOT)):
            return None
        else:
            return f"no file named {name} in src/backgammon/server or the root"
    if not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+", name):
        return None
    parts = name.split(".")
    if parts[0] == "backgammon":
        for cut in range(len(parts), 0, -1):
            module = _module_file(".".join(parts[:cut]))
            if module is not None:
                rest = parts[cut:]
                if not rest or rest[0] in _top_level(module):
                    return None
                return f"{'.'.join(parts[:cut])} defines no {rest[0]}"
        return f"no module {name}"
    head, member = parts[0], parts[1]
    if head[0].isupper():
        if head not in _classes():
            return f"no class {head} under src/backgammon"
        return None if _has_member(head, member) else f"class {head} has no {member}"
    modules = list(PACKAGE.rglob(f"{head}.py"))
    if not modules:
        return None  # not a module name (e.g. a file name without extension handled above)
    if any(member in _top_level(m) for m in modules):
        return None
    return f"no {head}.py under src/backgammon defines {member}"


def test_the_checker_catches_what_does_not_exist() -> None:
    assert missing("src/backgammon/engine/search.py") is None
    assert missing("engine/search.py") is None
    assert missing("tests/rules/") is None
    assert missing("backgammon.engine.search.rank_plays") is None
    assert missing("backgammon.moves.find_play") is None
    assert missing("protocol.play_from_steps") is None
    assert missing("Store.append") is None
    assert missing("--workers N") is None
    assert missing("/ws/tables/{id}") is None
    assert missing("src/backgammon/engine/nowhere.py") == "no file or folder src/backgammon/engine/nowhere.py"
    assert missing("nowhere.js") == "no file named nowhere.js in src/backgammon/server or the root"
    assert missing("search.py") == "no file named search.py in src/backgammon/server or the root"
    assert missing("pyproject.toml") is None
    assert missing("backgammon.moves.use_accelerator(False)") is None
    assert missing("backgammon.moves.no_such_thing(1)") == "backgammon.moves defines no no_such_thing"
    assert missing("backgammon.engine.nowhere") == "backgammon.engine defines no nowhere"
    assert missing("backgammon.engine.search.no_such_thing") == "backgammon.engine.search defines no no_such_thing"
    assert missing("protocol.no_such_thing") == "no protocol.py under src/backgammon defines no_such_thing"
    assert missing("Store.no_such_method") == "class Store has no no_such_method"
    assert missing("NoSuchClass.run") == "no class NoSuchClass under src/backgammon"
    assert names_in("a `x.py` b\n```\nserver: app.py (routes)\n```\n") == ["x.py", "app.py"]


def test_every_name_in_architecture_md_exists() -> None:
    names = names_in(DOC.read_text(encoding="utf-8"))
    assert len(names) > 50  # the document names the code it describes
    problems = sorted({problem for name in names if (problem := missing(name)) is not None})
    assert problems == []

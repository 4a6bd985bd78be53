"""Functions over a length limit and modules over a line limit under src/ (issue 44 item 6).

Usage: python scripts/long_functions.py [--function-lines 150] [--module-lines 1000]
Prints each offender (path:line, name, lines) and exits 1 when there is one.
A function's length counts from its first decorator or ``def`` to its last line.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "backgammon"
SKIP = ("migrations",)


def long_functions(limit: int) -> list[tuple[str, int, str, int]]:
    """(path, line, qualified name, lines) of every function longer than ``limit`` lines."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        if any(part in SKIP for part in path.parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                        lines = (child.end_lineno or child.lineno) - first + 1
                        if lines > limit:
                            found.append((str(path.relative_to(ROOT)), child.lineno, name, lines))
                    stack.append((child, name + "."))
                else:
                    stack.append((child, prefix))
    return sorted(found)


def long_modules(limit: int) -> list[tuple[str, int]]:
    """(path, lines) of every module longer than ``limit`` lines."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        if any(part in SKIP for part in path.parts):
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append((str(path.relative_to(ROOT)), lines))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--function-lines", type=int, default=150)
    parser.add_argument("--module-lines", type=int, default=1000)
    args = parser.parse_args()
    functions, modules = long_functions(args.function_lines), long_modules(args.module_lines)
    for path, line, name, lines in functions:
        print(f"{path}:{line}: function {name}: {lines} lines (limit {args.function_lines})")
    for path, lines in modules:
        print(f"{path}: module: {lines} lines (limit {args.module_lines})")
    if not functions and not modules:
        print(f"no function over {args.function_lines} lines, no module over {args.module_lines} lines")
    return 1 if functions or modules else 0


if __name__ == "__main__":
    sys.exit(main())

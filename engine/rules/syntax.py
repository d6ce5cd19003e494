"""What a clingo rule file defines and reads, from its syntax tree (clingo.ast, nothing grounded).

The rule loader (engine/rules/loader.py) uses these to refuse an MR file that defines a predicate of the
core, the facts schema or another MR file, and one that looks up a composition table without
stating which pairs it needs.
"""

from __future__ import annotations

from pathlib import Path

import clingo
import clingo.ast

from metalogic.engine.errors import Problem
from metalogic.engine.facts import display_path


def head_signatures(lp: Path) -> dict[str, int]:
    """The predicates a clingo file defines (name/arity -> first line)."""
    heads: dict[str, int] = {}

    def visit(stm: clingo.ast.AST) -> None:
        if stm.ast_type != clingo.ast.ASTType.Rule:
            return
        for atom in _head_atoms(stm.head):
            heads.setdefault(atom, stm.location.begin.line)

    clingo.ast.parse_files([str(lp)], visit)
    return heads


def _head_atoms(head: clingo.ast.AST) -> list[str]:
    if head.ast_type == clingo.ast.ASTType.Literal and head.atom.ast_type == clingo.ast.ASTType.SymbolicAtom:
        sym = head.atom.symbol
        if sym.ast_type == clingo.ast.ASTType.Function:
            return [f"{sym.name}/{len(sym.arguments)}"]
        if sym.ast_type == clingo.ast.ASTType.Pool:
            return [
                f"{a.name}/{len(a.arguments)}"
                for a in sym.arguments
                if a.ast_type == clingo.ast.ASTType.Function
            ]
    return []


# A clingo rule that reads a composition table must say which pairs it needs: the tables are ground
# only for needed pairs (logic/core/algebra.lp), so a lookup without a need would find nothing.
_TABLE_NEEDS = {
    "compose/4": "need_compose/3",
    "compose_in/5": "need_compose/3",
    "universal/3": "need_compose/3",
    "move_compose/3": "need_move_compose/2",
}


def unmet_needs(lp: Path) -> list[Problem]:
    """Lookups of a composition table (compose/4, compose_in/5, universal/3, move_compose/3) in a
    file that never states the need."""
    heads: set[str] = set()
    reads: dict[str, int] = {}

    def visit(stm: clingo.ast.AST) -> None:
        if stm.ast_type != clingo.ast.ASTType.Rule:
            return
        heads.update(_head_atoms(stm.head))
        for sig in _body_signatures(stm.body):
            if sig in _TABLE_NEEDS:
                reads.setdefault(sig, stm.location.begin.line)

    clingo.ast.parse_files([str(lp)], visit)
    return [
        Problem(
            f"the rules read {sig} but never state {_TABLE_NEEDS[sig]}, so the table would be empty",
            where=f"{display_path(lp)}:{line}",
            expected=f"a rule deriving {_TABLE_NEEDS[sig]} for the pairs this file looks up",
            fix="see 'Composition tables' in docs/adding-an-mr.md",
        )
        for sig, line in sorted(reads.items())
        if _TABLE_NEEDS[sig] not in heads
    ]


def _body_signatures(node: object) -> list[str]:
    """name/arity of every function term in a rule body (its atoms, inside aggregates and
    conditions too)."""
    if isinstance(node, clingo.ast.AST):
        found = []
        if node.ast_type == clingo.ast.ASTType.Function:
            found.append(f"{node.name}/{len(node.arguments)}")
        for key in node.child_keys:
            found += _body_signatures(getattr(node, key))
        return found
    if isinstance(node, str | int) or node is None:
        return []
    try:
        return [sig for child in node for sig in _body_signatures(child)]  # type: ignore[attr-defined]
    except TypeError:
        return []

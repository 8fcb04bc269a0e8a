"""Help screens that show a flag as a flag.

Typer's rich help prints every option's type, flags included (``--help <bool>``), as if a flag
took a value; its plain help does not. A flag with an empty metavar prints no type.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand, TyperGroup, TyperOption


def _flags_untyped(params: list[Any]) -> list[Any]:
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    return params


class Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_untyped(super().get_params(ctx))


class Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_untyped(super().get_params(ctx))

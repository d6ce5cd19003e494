"""Parameters given on the command line (`-c name=value`, or const = [...] in a run configuration),
read once for every program that declares parameters: the MRs and the core (engine/rules/loader.py)
and test-case generation (engine/generate/run.py). The rule that applies them is stated once too, in
logic/core/param_rule.lp."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal

from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.rules.declarations import Param

PLAIN_DECIMAL = re.compile(r"[0-9]{1,7}(\.[0-9]{1,12})?")


def resolve_settings(
    settings: Sequence[str],
    params: Mapping[str, Param],
    *,
    kind: str = "parameter",
    example: str = "eps=0.1",
    listing: str = "run 'metalogic mrs' to list the parameters",
) -> dict[str, int]:
    """Turn `-c name=value` settings into integer overrides of `params`, checking names and values:
    a ratio (scale 1000) is a plain decimal from 0 to 1 in thousandths, anything else a whole number
    from 0 to 1000000. `kind`, `example` and `listing` word the errors for the caller's parameters."""
    out: dict[str, int] = {}
    for item in settings:
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name or not raw:
            raise MetalogicError.single(
                f"bad setting '{item}'",
                expected=f"name=value, e.g. -c {example}",
                fix="write the parameter name, '=' and a number",
            )
        if name not in params:
            raise MetalogicError.single(
                f"unknown {kind} '{name}'",
                expected="one of " + ", ".join(params),
                fix=did_you_mean(name, list(params)) or listing,
            )
        if name in out:
            raise MetalogicError.single(
                f"parameter {name} is set twice",
                expected="each parameter at most once",
                fix=f"keep one -c {name}=VALUE",
            )
        p = params[name]
        # Plain decimals only: an exponent (1e99999999999, 1e-99999999999) would overflow the
        # arithmetic or round to 0 without a word.
        value = Decimal(raw) * p.scale if PLAIN_DECIMAL.fullmatch(raw) else Decimal("NaN")
        limit = 1000 if p.scale > 1 else 1_000_000
        if value.is_nan() or value != value.to_integral_value() or not 0 <= value <= limit:
            unit = (
                f"a decimal from 0 to 1 in steps of 0.001 (e.g. {p.default / p.scale:g})"
                if p.scale > 1
                else "a whole number from 0 to 1000000"
            )
            default = f"{p.default / p.scale:g}" if p.scale > 1 else str(p.default)
            raise MetalogicError.single(
                f"bad value '{raw}' for parameter {name}",
                expected=unit,
                fix=f"write it like -c {name}={default} (the default)",
            )
        out[name] = int(value)
    return out

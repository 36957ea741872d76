"""docs/api.md lists every ErrorInfo reason a service can send (issue 17 s4: "List every
reason in docs/api.md").

The reasons are read from the services' source: every upper-case string literal passed to an
error constructor (`RpcError` and its subclasses, the `invalid`/`precondition`/... helpers)
or to a validator that takes the reason to raise (`check_choice`), and every `reason=`. A
reason chosen through a variable (e.g. a token check's mapping) is not seen: the scan is a
floor, not the whole set (tests/security/test_authz_matrix.py and the services' own tests
check those by calling).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REASON = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{4,}$")
RAISERS = {
    "RpcError",
    "GameError",
    "CatalogError",
    "InvalidArgument",
    "FailedPrecondition",
    "Aborted",
    "NotFound",
    "PermissionDenied",
    "Unauthenticated",
    "Unavailable",
    "invalid",
    "precondition",
    "aborted",
    "denied",
    "unauthenticated",
    "unavailable",
    "exhausted",
    "_invalid",
    "_refused",
    "check_choice",
}
# Status-code names passed positionally next to a reason are not reasons.
CODES = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
}


def _called(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def raised_reasons() -> dict[str, set[str]]:
    """Reason -> the files that raise it, over services/ (tests excluded)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "services").rglob("*.py")):
        if "tests" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call) and _called(node) in RAISERS:
                values = list(node.args)
            elif isinstance(node, ast.keyword) and node.arg == "reason":
                values = [node.value]
            for value in values:
                text = value.value if isinstance(value, ast.Constant) else None
                if isinstance(text, str) and REASON.match(text) and text not in CODES:
                    found.setdefault(text, set()).add(str(path.relative_to(ROOT)))
    return found


def documented_words() -> set[str]:
    """Every upper-case word inside a `code span` of docs/api.md."""
    text = (ROOT / "docs" / "api.md").read_text()
    return {w for span in re.findall(r"`([^`\n]+)`", text) for w in re.findall(r"[A-Z0-9_]+", span)}


def test_every_raised_reason_is_documented() -> None:
    raised = raised_reasons()
    assert {"STALE_VERSION", "ALREADY_QUEUED", "UNKNOWN_BOT_KIND", "MALFORMED_REQUEST"} <= set(
        raised
    ), "the scan no longer finds the services' reasons"
    assert len(raised) >= 80
    missing = {r: sorted(files) for r, files in raised.items() if r not in documented_words()}
    assert missing == {}, f"reasons raised but not in docs/api.md: {missing}"

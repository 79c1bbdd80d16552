"""The claim registry, verdicts, reports, the CLI and the pytest plugin."""

from posbias.proofs_checks.registry import (
    PAPERS,
    VERDICTS,
    CheckContext,
    Claim,
    Evidence,
    Result,
    all_claims,
    claim,
    get_claim,
    register,
    run_claim,
    unregister,
)

__all__ = [
    "PAPERS",
    "VERDICTS",
    "CheckContext",
    "Claim",
    "Evidence",
    "Result",
    "all_claims",
    "claim",
    "get_claim",
    "register",
    "run_claim",
    "unregister",
]

"""Claims of duerinckx2026: M. Duerinckx, B. Geshkovski, S. Rossi, *Kinetic theory for
Transformers and the lost-in-the-middle phenomenon*, arXiv 2605.09213.

The paper models causal self-attention as a non-exchangeable interacting particle system, proves a
mean-field limit and solves the limiting correlation equation for iid uniform tokens in closed
form: the retrieval profile is U-shaped, with primacy, recency and a unique interior minimum under
a smallness condition.  What could be read: the abstract (arXiv listing and third-party
summaries); the formulas, parameters and figures of the claims come from its public code
(github.com/borjanG/2026-lost-in-the-middle, commit c7e12ba), run here; every card marks what it
could not confirm from the paper.

Claims, in order:

- ``retrieval-profile``: the profile S_t(s) = Σ_n ω_n φ'(s) ψ_{a_n t}(Y_λ(s)) under the ALiBi warp
  is the continuum limit of the causal ALiBi dynamics (it solves their kinetic equation);
- ``bessel-closed-form``: ψ_c(y) = sqrt(c/y) I_1(2 sqrt(c y));
- ``poisson-depth-mixture``: e^{-c} φ' ψ_c(Y) is a Poisson(c) mixture over depth of chowdhury2026's
  densities ρ_H (and the limit of the residual rollout with steps c/T);
- ``t-crit``: the slope at the final token changes sign at t_crit = 2(1 - e^{-λ}) Σωa/Σωa²;
- ``valley-past-t-crit``: the same threshold for the interior minimum at other slopes (a variant);
- ``double-well``: a mixture of heads with different slopes λ can have two wells;
- ``step0-valley``: the kinetic interior minimum against the measured Step-0 valleys (a proxy).
"""

import importlib

MODULES = (
    "retrieval_profile",
    "bessel_closed_form",
    "poisson_depth_mixture",
    "t_crit",
    "valley_past_t_crit",
    "double_well",
    "step0_valley",
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")

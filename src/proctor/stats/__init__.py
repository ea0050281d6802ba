"""Pure statistics for trial outcomes: descriptive summaries, pass@k, bootstrap CIs, A/B verdicts.

Everything here takes plain lists and returns numbers or small frozen dataclasses; no I/O.
"""

from proctor.stats.ab import (
    CaseVerdict,
    Comparison,
    Verdict,
    alpha_of,
    classify_case,
    compare_samples,
    p_value_text,
)
from proctor.stats.bootstrap import (
    Interval,
    Statistic,
    bootstrap_ci,
    bootstrap_pass_rate_ci,
    expanded_bootstrap_ci,
    paired_bootstrap_delta_ci,
    unpaired_bootstrap_delta_ci,
)
from proctor.stats.descriptive import (
    Summary,
    mean,
    median,
    statistic_named,
    strict_median,
    summarize,
)
from proctor.stats.rates import (
    Stability,
    pass_at_k,
    pass_at_k_table,
    pass_hat_k,
    pass_hat_k_table,
    pass_rate,
    stability,
)

__all__ = [
    "CaseVerdict",
    "Comparison",
    "Interval",
    "Stability",
    "Statistic",
    "Summary",
    "Verdict",
    "alpha_of",
    "bootstrap_ci",
    "bootstrap_pass_rate_ci",
    "classify_case",
    "compare_samples",
    "expanded_bootstrap_ci",
    "mean",
    "median",
    "p_value_text",
    "paired_bootstrap_delta_ci",
    "pass_at_k",
    "pass_at_k_table",
    "pass_hat_k",
    "pass_hat_k_table",
    "pass_rate",
    "stability",
    "statistic_named",
    "strict_median",
    "summarize",
    "unpaired_bootstrap_delta_ci",
]

from proctor.evals import define_eval_config

config = define_eval_config(max_concurrency=4, timeout_ms=60_000, judge="scripted/judge")

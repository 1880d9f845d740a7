import { BENCHMARK_NAMES } from '../generators/generate-benchmark.js';
import { OFFLINE_POLICIES } from '../offline/offline-model.js';

/** The help text of `rlm eval`. */
export const EVAL_USAGE = `Usage:
  rlm eval --benchmark <name|file:PATH> --model <id> [options]
  rlm eval compare <A> <B> [--json]

Run a benchmark against one or more systems and write results.jsonl, report.md,
summary.json and accuracy.svg to --out.

Options:
  --benchmark      ${BENCHMARK_NAMES.join('|')}|file:PATH (JSONL tasks)
  --sizes          context sizes in characters, e.g. 8k,128k,1m   (default 8k)
  --tasks          tasks per size                                 (default 1)
  --seed           generator seed                                 (default 1)
  --needles        sniah: needles per task (more than 1 asks for a set)   (default 1)
  --systems        rlm,base                                       (default rlm,base)
  --model          provider/model, or testkit:<policy> to run offline
                   (policies: ${OFFLINE_POLICIES.join(', ')})
  --sub-model      model behind llm_query                         (default --model)
  --max-depth      RLM recursion depth                            (default 1)
  --max-iterations RLM iterations per run
  --prompt-mode    solver,coordinator: one rlm system per mode    (default solver)
  --drivers        prompt drivers for the rlm systems, e.g. verify-before-final
  --attempts       attempts per task and system (pass@k)          (default 1)
  --concurrency    attempts running at once                       (default 1)
  --max-cost-usd   stop starting attempts once this much is spent
  --base-window    base system window in tokens (default: the model's)
  --out            output directory                               (default eval-results)
  --resume         keep finished rows in --out and run only the rest
  --offline-transport  in-process, or fake-anthropic: testkit models answer through a local
                   fake Anthropic server and the real client         (default in-process)
  --help           show this text

compare: A and B are output directories (or results.jsonl files); prints per-system
accuracy and cost deltas and the tasks that flipped.
`;

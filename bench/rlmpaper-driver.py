"""Runs the reference engine ("rlmpaper", the paper authors' Python RLM engine) for bench/side-by-side.mjs.

It loads only the engine's REPL environment (rlm.environments.local_repl.LocalREPL) and its own
parsing and prompt helpers (rlm.utils.parsing, rlm.utils.prompts): the package's __init__ pulls in
model clients and a console library that the bench does not need (and that may not be installed),
so a bare `rlm` package object stands in for it. Blocks run through LocalREPL.execute_code, which is
the engine's own `exec` path. A "turn" is what the engine's loop does per iteration minus the model
call (a zero-latency model): build the user prompt, find the code blocks, execute them, format the
iteration into the message history.

Usage: python3 rlmpaper-driver.py <reference-checkout> serve          (JSON lines on stdin/stdout)
       python3 rlmpaper-driver.py <reference-checkout> <task> <json>  (one task in a fresh process)
"""

import json
import os
import resource
import sys
import time
import types

CHECKOUT = sys.argv[1]
sys.path.insert(0, CHECKOUT)
_package = types.ModuleType("rlm")
_package.__path__ = [os.path.join(CHECKOUT, "rlm")]
sys.modules["rlm"] = _package

from rlm.core.types import CodeBlock, RLMIteration, REPLResult  # noqa: E402
from rlm.environments.local_repl import LocalREPL  # noqa: E402
from rlm.utils.parsing import find_code_blocks, format_iteration  # noqa: E402
from rlm.utils.prompts import build_user_prompt  # noqa: E402

_ = REPLResult


def cpu_ms():
    return time.process_time() * 1000


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def read_text(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def run_turns(env, responses, history):
    """The engine's per-iteration work for each response; stops at a final answer."""
    samples = []
    for i, response in enumerate(responses):
        wall0, cpu0 = time.perf_counter(), cpu_ms()
        history.append(build_user_prompt(None, i, 1, 0))
        blocks = []
        for code in find_code_blocks(response):
            blocks.append(CodeBlock(code=code, result=env.execute_code(code)))
        iteration = RLMIteration(prompt=history, response=response, code_blocks=blocks, iteration_time=0)
        final = next((b.result.final_answer for b in blocks if b.result.final_answer is not None), None)
        if final is None:
            history.extend(format_iteration(iteration))
        samples.append({"wallMs": (time.perf_counter() - wall0) * 1000, "cpuMs": cpu_ms() - cpu0})
        if final is not None:
            return samples, final, blocks
    return samples, None, blocks


def fence(code):
    return f"```repl\n{code}\n```"


state = {"env": None}


def drop_env():
    if state["env"] is not None:
        state["env"].cleanup()
        state["env"] = None


def task_load(args):
    drop_env()
    text = read_text(args["file"]) if "file" in args else args.get("text")
    wall0, cpu0 = time.perf_counter(), cpu_ms()
    state["env"] = LocalREPL(context_payload=text)
    return {"wallMs": (time.perf_counter() - wall0) * 1000, "cpuMs": cpu_ms() - cpu0}


def task_exec(args):
    wall0, cpu0 = time.perf_counter(), cpu_ms()
    result = state["env"].execute_code(args["code"])
    return {
        "wallMs": (time.perf_counter() - wall0) * 1000,
        "cpuMs": cpu_ms() - cpu0,
        "stdout": result.stdout,
        "stderr": result.stderr,
    }


def task_turns(args):
    """A run of `turns` iterations answering the reference block, the last one answering."""
    n = args["turns"]
    responses = [fence(args["block"])] * (n - 1) + [fence('answer["content"] = "done"; answer["ready"] = True')]
    env = LocalREPL(context_payload="context")
    try:
        samples, final, _blocks = run_turns(env, responses, [])
    finally:
        env.cleanup()
    return {"turns": samples, "final": final}


def task_run3(args):
    """A 3-iteration run over a file's text: load, then the given three blocks; wall and CPU of it all."""
    text = read_text(args["file"])
    wall0, cpu0 = time.perf_counter(), cpu_ms()
    env = LocalREPL(context_payload=text)
    try:
        _samples, final, _blocks = run_turns(env, [fence(code) for code in args["blocks"]], [])
    finally:
        env.cleanup()
    return {
        "wallMs": (time.perf_counter() - wall0) * 1000,
        "cpuMs": cpu_ms() - cpu0,
        "final": final,
        "peakRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def task_create_dispose(args):
    cpu0 = cpu_ms()
    env = LocalREPL()
    env.cleanup()
    return {"cpuMs": cpu_ms() - cpu0}


def task_first_invocation(args):
    """In a fresh process, after the imports: one environment, one turn with the reference block."""
    cpu0 = cpu_ms()
    env = LocalREPL(context_payload="context")
    run_turns(env, [fence(args["block"])], [])
    env.cleanup()
    return {"cpuMs": cpu_ms() - cpu0}


def task_rss_per_env(args):
    text = read_text(args["file"])
    envs = []
    before = rss_bytes()
    for _ in range(args["count"]):
        envs.append(LocalREPL(context_payload=text))
    after = rss_bytes()
    for env in envs:
        env.cleanup()
    return {"mbPerEnv": (after - before) / args["count"] / 2**20}


TASKS = {
    "load": task_load,
    "exec": task_exec,
    "turns": task_turns,
    "run3": task_run3,
    "create-dispose": task_create_dispose,
    "first-invocation": task_first_invocation,
    "rss-per-env": task_rss_per_env,
}

if sys.argv[2] == "serve":
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {"ok": True, "value": TASKS[request["task"]](request.get("args", {}))}
        except Exception as error:  # reported to the caller, which fails the row
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
else:
    print(json.dumps(TASKS[sys.argv[2]](json.loads(sys.argv[3]))))

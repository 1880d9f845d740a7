import type { EngineParts } from './engine-parts.js';

/**
 * How long stopping the jobs a block left behind may take. Each is interrupted at its first
 * interrupt check; thousands of independent async loops could still take longer, and then the
 * engine is replaced (`sandbox.reset`).
 */
const DROP_JOBS_MS = 1_000;

/** Runs queued promise jobs until none is left or the interrupt handler stops one. */
export function pumpJobs({ runtime, interrupts }: EngineParts): void {
  while (runtime.hasPendingJob()) {
    const result = runtime.executePendingJobs();
    if (result.error) {
      result.error.dispose();
      if (interrupts.reason !== undefined) return;
    }
  }
}

/**
 * A stack limit no call fits in. QuickJS checks the stack on entry to every function call, before
 * running any of its code, so with this limit each leftover job fails as it starts.
 */
const STARVED_STACK_BYTES = 1;

/**
 * Drops every job left over (by a finished or stopped block, or by guest code a read reached), so
 * none of it runs in the next block. QuickJS cannot remove a queued job, so each is run with a
 * stack too small for any call: its handler (or the async function it resumes) fails on entry,
 * before any of its code runs, and the promise it would settle is left pending, which queues
 * nothing more. The interrupt handler is forced as well, in case a job reaches code another way.
 * False when they could not all be dropped in time (the engine must then be replaced).
 */
export function dropLeftoverJobs(parts: EngineParts): boolean {
  const { runtime, interrupts, watchdog, guard, limits } = parts;
  if (!runtime.hasPendingJob()) return true;
  const deadline = Date.now() + DROP_JOBS_MS;
  interrupts.force = true;
  watchdog.arm(deadline, 'jobs');
  runtime.setMaxStackSize(STARVED_STACK_BYTES);
  try {
    while (runtime.hasPendingJob()) {
      if (Date.now() > deadline) return false;
      const result = guard(() => runtime.executePendingJobs());
      if (result.error) result.error.dispose();
    }
    return true;
  } finally {
    runtime.setMaxStackSize(limits.stackBytes);
    watchdog.disarm();
    interrupts.force = false;
    interrupts.reason = undefined;
  }
}

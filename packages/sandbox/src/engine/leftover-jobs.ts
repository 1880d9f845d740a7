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
 * Stops every job left over (by a finished or stopped block, or by guest code a read reached),
 * so none of it runs in the next block: each is interrupted at its first interrupt check, with
 * host functions refusing calls and output going nowhere. False when they could not all be
 * stopped in time (the engine must then be replaced).
 */
export function dropLeftoverJobs({ runtime, interrupts, watchdog, guard }: EngineParts): boolean {
  if (!runtime.hasPendingJob()) return true;
  const deadline = Date.now() + DROP_JOBS_MS;
  interrupts.force = true;
  watchdog.arm(deadline, 'jobs');
  try {
    while (runtime.hasPendingJob()) {
      if (Date.now() > deadline) return false;
      const result = guard(() => runtime.executePendingJobs());
      if (result.error) result.error.dispose();
    }
    return true;
  } finally {
    watchdog.disarm();
    interrupts.force = false;
    interrupts.reason = undefined;
  }
}

/**
 * Which limit an engine deadline stands for: the block's CPU time, its wall-clock time, or the
 * time allowed to stop the jobs a block left behind.
 */
export type DeadlineKind = 'cpu' | 'wall' | 'jobs';

const KINDS: readonly DeadlineKind[] = ['cpu', 'wall', 'jobs'];

/**
 * Where the engine publishes the deadline of the guest code it is running, so a watchdog outside
 * the engine can stop a thread stuck past it. QuickJS checks its interrupt handler only between
 * bytecodes, so a single native builtin (`JSON.stringify` of a huge array, a regex over a large
 * string) runs to its end whatever the deadline says; only terminating the thread stops it.
 */
export interface WatchdogCell {
  /** Guest code with this deadline (epoch ms) is starting. */
  arm(deadline: number, kind: DeadlineKind): void;
  /** No guest code is running. */
  disarm(): void;
}

/** Slot 0: deadline in epoch ms (0 when disarmed); slot 1: index of its kind. */
const SLOTS = 2;

/** A cell another thread can read; `buffer` goes to that thread. */
export function newWatchdogBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(SLOTS * BigInt64Array.BYTES_PER_ELEMENT);
}

/** The engine's side of a shared cell. */
export function sharedWatchdogCell(buffer: SharedArrayBuffer): WatchdogCell {
  const cells = new BigInt64Array(buffer);
  return {
    arm(deadline, kind) {
      Atomics.store(cells, 1, BigInt(KINDS.indexOf(kind)));
      Atomics.store(cells, 0, BigInt(Math.max(1, Math.ceil(deadline))));
    },
    disarm() {
      Atomics.store(cells, 0, 0n);
    },
  };
}

/** The watchdog's side: the deadline the engine is running under, if any. */
export function readWatchdogCell(
  buffer: SharedArrayBuffer,
): { deadline: number; kind: DeadlineKind } | undefined {
  const cells = new BigInt64Array(buffer);
  const deadline = Number(Atomics.load(cells, 0));
  if (deadline === 0 || !Number.isFinite(deadline)) return undefined;
  return { deadline, kind: KINDS[Number(Atomics.load(cells, 1))] ?? 'cpu' };
}

/** A cell nobody watches (inline isolation: nothing outside the thread could stop it anyway). */
export const UNWATCHED: WatchdogCell = { arm() {}, disarm() {} };

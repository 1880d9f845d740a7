import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newWatchdogBuffer, sharedWatchdogCell } from './engine/watchdog-cell.js';
import type { ResetReason } from './sandbox-reset.js';
import {
  ABORT_GRACE_MS,
  EngineWatch,
  OVERRUN_GRACE_MS,
  WATCHDOG_POLL_MS,
} from './worker-watchdog.js';

/** A watch over a fresh cell, with the reasons it killed for. */
function watching(): { watch: EngineWatch; cell: SharedArrayBuffer; kills: ResetReason[] } {
  const cell = newWatchdogBuffer();
  const kills: ResetReason[] = [];
  return { watch: new EngineWatch(cell, (reason) => kills.push(reason)), cell, kills };
}

describe('EngineWatch', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls only while a request is out: no timer is left once the requests are answered', () => {
    const { watch, kills } = watching();
    expect(vi.getTimerCount()).toBe(0);
    const first = watch.begin();
    const second = watch.begin();
    // One poll for both requests.
    expect(vi.getTimerCount()).toBe(1);
    watch.end(first);
    watch.end(second);
    vi.advanceTimersByTime(WATCHDOG_POLL_MS);
    expect(vi.getTimerCount()).toBe(0);
    // The next request starts it again.
    watch.end(watch.begin());
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(10 * WATCHDOG_POLL_MS);
    expect(vi.getTimerCount()).toBe(0);
    expect(kills).toEqual([]);
  });

  it('kills once when guest code runs past the grace after its published deadline', () => {
    const { watch, cell, kills } = watching();
    const running = watch.begin();
    sharedWatchdogCell(cell).arm(Date.now() + 1_000, 'cpu');
    vi.advanceTimersByTime(1_000 + OVERRUN_GRACE_MS);
    expect(kills).toEqual([]);
    vi.advanceTimersByTime(2 * WATCHDOG_POLL_MS);
    expect(kills).toEqual(['cpu']);
    // Killed: it watches nothing more, even a request that begins afterwards.
    watch.begin();
    vi.advanceTimersByTime(10 * WATCHDOG_POLL_MS);
    expect(kills).toEqual(['cpu']);
    expect(vi.getTimerCount()).toBe(0);
    watch.end(running);
  });

  it('leaves a deadline alone while no request is out', () => {
    const { watch, cell, kills } = watching();
    watch.end(watch.begin());
    sharedWatchdogCell(cell).arm(Date.now() - 10 * OVERRUN_GRACE_MS, 'wall');
    vi.advanceTimersByTime(10 * WATCHDOG_POLL_MS);
    expect(kills).toEqual([]);
  });

  it('gives an aborted request ABORT_GRACE_MS to answer', () => {
    const { watch, kills } = watching();
    const answered = watch.begin();
    watch.aborted(answered);
    vi.advanceTimersByTime(ABORT_GRACE_MS - 1);
    watch.end(answered);
    vi.advanceTimersByTime(ABORT_GRACE_MS);
    expect(kills).toEqual([]);

    const silent = watch.begin();
    watch.aborted(silent);
    // A second abort does not restart the grace.
    vi.advanceTimersByTime(ABORT_GRACE_MS / 2);
    watch.aborted(silent);
    vi.advanceTimersByTime(ABORT_GRACE_MS / 2);
    expect(kills).toEqual(['aborted']);
  });

  it('kills a request unanswered past its own last-resort deadline (a wall reset)', () => {
    const { watch, kills } = watching();
    const other = watch.begin();
    const execute = watch.begin(1_000);
    vi.advanceTimersByTime(1_000);
    expect(kills).toEqual([]);
    vi.advanceTimersByTime(2 * WATCHDOG_POLL_MS);
    expect(kills).toEqual(['wall']);
    watch.end(other);
    watch.end(execute);
  });

  it('stop() ends every timer, including an abort grace', () => {
    const { watch, kills } = watching();
    const request = watch.begin(1_000);
    watch.aborted(request);
    watch.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * ABORT_GRACE_MS);
    expect(kills).toEqual([]);
  });
});

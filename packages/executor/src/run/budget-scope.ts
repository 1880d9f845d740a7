import {
  addCallUsage,
  emptyUsage,
  type LimitName,
  type ModelResponse,
  mergeUsage,
  RlmError,
  type RunStatus,
  totalUsage,
  type UsageSummary,
} from '@rlm/protocol';

/** Why a run (or a whole subtree) stopped early. */
export interface StopInfo {
  status: Exclude<RunStatus, 'completed' | 'max_iterations'>;
  limit?: LimitName;
  used?: number;
  max?: number;
  error?: { code: string; message: string };
}

/** The caps one scope enforces on itself (its share); ancestors enforce theirs. */
export interface ScopeLimits {
  maxTokens?: number | undefined;
  maxCostUsd?: number | undefined;
  maxSubcalls?: number | undefined;
}

/**
 * The most one model call may use, reserved from every scope's budget before it is sent.
 * `costUsd` is `Infinity` when the price is unknown before the call (a provider that reports
 * each call's cost afterwards).
 */
export interface CallEstimate {
  tokens: number;
  costUsd: number;
}

/** A call's hold on the budget, from `reserve()` until `settle()`. */
export interface Reservation {
  readonly estimate: CallEstimate;
}

/** What is left of a scope's budget (`null` = unlimited). */
export interface BudgetRemaining {
  tokens: number | null;
  costUsd: number | null;
  subcalls: number | null;
  wallTimeMs: number | null;
}

/** How a scope is placed in the tree and what it enforces. */
export interface BudgetScopeOptions {
  parent?: BudgetScope | undefined;
  limits?: ScopeLimits;
  /** Absolute deadline in epoch ms (the tree's wall-time limit). */
  deadlineAt?: number | undefined;
  now: () => number;
  /** Told once when this scope trips one of its own limits (for the `limit-hit` event). */
  onLimitHit?: (info: Required<Pick<StopInfo, 'limit' | 'used' | 'max'>>) => void;
}

/** Tokens a call consumed: uncached input, output and cache reads and writes. */
export function tokensOf(usage: UsageSummary): number {
  const total = totalUsage(usage);
  return total.inputTokens + total.outputTokens + total.cacheReadTokens + total.cacheWriteTokens;
}

function stopError(info: StopInfo): RlmError {
  if (info.status === 'cancelled') {
    return new RlmError({
      code: 'executor.cancelled',
      message: 'The run was cancelled',
      details: {},
    });
  }
  const limit = info.limit ?? 'unknown';
  return new RlmError({
    code: 'executor.budget_exceeded',
    message: `The run stopped: ${limit} limit reached (${info.used} of ${info.max})`,
    details: { limit, used: info.used ?? 0, max: info.max ?? 0 },
  });
}

/** A scope whose cap is spent: which cap, what is spent, and the cap. */
interface Refusal {
  limit: 'tokens' | 'cost';
  spent: number;
  max: number;
}

function amount(limit: 'tokens' | 'cost', value: number): string {
  if (!Number.isFinite(value)) return 'an unknown amount';
  return limit === 'tokens' ? `${Math.ceil(value)} tokens` : `$${value.toFixed(4)}`;
}

/** The error a refused call rejects with: which budget is spent. */
function refusalError({ limit, spent, max }: Refusal): RlmError<'executor.budget_exceeded'> {
  const name = limit === 'tokens' ? 'token' : 'cost';
  return new RlmError({
    code: 'executor.budget_exceeded',
    message:
      `This model call was refused: the ${name} budget is spent ` +
      `(${amount(limit, spent)} of ${amount(limit, max)}).`,
    details: { limit, used: spent, max },
  });
}

/** What a scope (or a whole chain) says to a call asking for room now. */
type Admission =
  | { kind: 'admit' }
  | { kind: 'wait' }
  | { kind: 'refuse'; refusal: Refusal; scope: BudgetScope };

/** A call waiting for calls in flight to settle, in the order the calls asked. */
interface Waiter {
  scope: BudgetScope;
  estimate: CallEstimate;
  admit: (reservation: Reservation) => void;
  refuse: (error: unknown) => void;
}

/**
 * One node of the run tree's accounting. Usage and sub-calls are added to the scope and every
 * ancestor, so the root always holds the tree-wide totals; each scope checks its own caps and,
 * when one trips, aborts its signal — which every descendant's signal follows. The root scope
 * also owns the wall-clock deadline and the caller's cancellation.
 */
export class BudgetScope {
  readonly parent: BudgetScope | undefined;
  readonly deadlineAt: number | undefined;
  /**
   * Whether this scope or an ancestor caps tokens or cost: without one a call needs no
   * reservation (the loop's hot path skips it).
   */
  readonly capsSpend: boolean;
  #usage: UsageSummary = emptyUsage();
  #subcalls = 0;
  #refused = 0;
  readonly #reservations = new Set<Reservation>();
  /** The root's queue of calls waiting for room (empty below the root). */
  readonly #waiters: Waiter[] = [];
  #pumping = false;
  #stop: StopInfo | null = null;
  readonly #controller = new AbortController();
  readonly #limits: ScopeLimits;
  readonly #now: () => number;
  readonly #onLimitHit: BudgetScopeOptions['onLimitHit'];
  readonly #cleanups: (() => void)[] = [];

  constructor({ parent, limits = {}, deadlineAt, now, onLimitHit }: BudgetScopeOptions) {
    this.parent = parent;
    this.#limits = limits;
    this.capsSpend =
      limits.maxTokens !== undefined ||
      limits.maxCostUsd !== undefined ||
      parent?.capsSpend === true;
    this.#now = now;
    this.#onLimitHit = onLimitHit;
    this.deadlineAt = deadlineAt ?? parent?.deadlineAt;
    if (parent !== undefined) {
      this.follow(parent.signal, () => parent.stopInfo ?? { status: 'cancelled' });
    }
    if (deadlineAt !== undefined) this.#armDeadline(deadlineAt);
  }

  /** Aborted when this scope or an ancestor stops. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get usage(): UsageSummary {
    return this.#usage;
  }

  get subcalls(): number {
    return this.#subcalls;
  }

  /**
   * Calls this scope and its descendants never sent because a budget had no room for them:
   * refused model calls and sub-calls, and calls still waiting for room when a limit stopped
   * their scope.
   */
  get refusedCalls(): number {
    return this.#refused;
  }

  get stopInfo(): StopInfo | null {
    return this.#stop;
  }

  /** Stops this scope (and its subtree) when `signal` aborts, recording `info()` as the reason. */
  follow(signal: AbortSignal, info: () => StopInfo): void {
    if (signal.aborted) {
      this.stop(info());
      return;
    }
    const onAbort = () => this.stop(info());
    signal.addEventListener('abort', onAbort, { once: true });
    this.#cleanups.push(() => signal.removeEventListener('abort', onAbort));
  }

  /** Stops this scope with `info` unless it already stopped; aborts everything running under it. */
  stop(info: StopInfo): void {
    if (this.#stop !== null) return;
    this.#stop = info;
    this.#controller.abort(stopError(info));
  }

  /**
   * Carries over what an interrupted run already spent and the calls its budget refused (a
   * resumed root, before anything runs), so its caps and totals cover the whole run.
   */
  restore({
    usage,
    subcalls,
    refusedCalls = 0,
  }: {
    usage: UsageSummary;
    subcalls: number;
    refusedCalls?: number | undefined;
  }): void {
    this.#usage = mergeUsage(this.#usage, usage);
    this.#subcalls += subcalls;
    this.#refused += refusedCalls;
    this.#checkSpend();
  }

  /**
   * Reserves a call's worst case in this scope and every ancestor, before the call is sent. A
   * scope admits it when its worst case fits beside what is spent and reserved, or, so that a
   * budget smaller than one call still makes progress, when nothing else is reserved there and
   * the cap is not yet reached: hence at most one call ends beyond a budget, however many run at
   * once. A call that does not fit yet WAITS for the calls in flight to settle (they may use far
   * less than they reserved) instead of being refused; waiters are admitted in the order they
   * asked, so a large call is not starved by small ones. A call is refused only when a cap is
   * spent. An `essential` call (an invocation's own turn) never waits: it needs only the cap not
   * to be reached.
   *
   * @throws RlmError `executor.budget_exceeded` (rejects) when a scope's cap is spent; that
   *   scope also stops, as when a charge crosses it. Rejects with `signal`'s reason when it
   *   aborts while the call waits.
   */
  reserve(
    estimate: CallEstimate,
    { essential = false, signal }: { essential?: boolean; signal?: AbortSignal | undefined } = {},
  ): Promise<Reservation> {
    const root = this.#root();
    if (essential || root.#waiters.length === 0) {
      const admission = this.#admission(estimate, essential);
      if (admission.kind === 'admit') return Promise.resolve(this.#hold(estimate));
      if (admission.kind === 'refuse') return Promise.reject(this.#refuse(admission));
    }
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    return new Promise<Reservation>((resolve, reject) => {
      const onAbort = () => {
        const at = root.#waiters.indexOf(waiter);
        if (at === -1) return;
        root.#waiters.splice(at, 1);
        // Dropped by a budget or time limit (not a cancellation): a call the budget refused.
        if (RlmError.is(signal?.reason, 'executor.budget_exceeded')) this.#countRefused();
        reject(signal?.reason);
        // The head may have left: whoever was behind it may fit now.
        root.#pump();
      };
      const waiter: Waiter = {
        scope: this,
        estimate,
        admit: (reservation) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(reservation);
        },
        refuse: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      root.#waiters.push(waiter);
      root.#pump();
    });
  }

  /**
   * Ends a reservation: releases it everywhere and charges what the call really used (nothing,
   * for a call that used nothing), which checks the caps; then admits the calls waiting for the
   * room it held.
   */
  settle(
    reservation: Reservation,
    call: Pick<ModelResponse, 'model' | 'usage' | 'costUsd'> | null,
  ): void {
    for (const scope of this.#chain()) scope.#reservations.delete(reservation);
    if (call !== null) this.charge(call);
    this.#root().#pump();
  }

  /** Adds one model call's usage here and to every ancestor, then checks cost and token caps. */
  charge(response: Pick<ModelResponse, 'model' | 'usage' | 'costUsd' | 'cache'>): void {
    const call = {
      model: response.model,
      usage: response.usage,
      costUsd: response.costUsd ?? 0,
      cache: response.cache,
    };
    // Every model call comes here: walk the parents rather than building the chain's array twice.
    for (let scope: BudgetScope | undefined = this; scope !== undefined; scope = scope.parent) {
      scope.#usage = addCallUsage(scope.#usage, call);
    }
    this.#checkSpendFromRoot();
  }

  /** Checks the caps of the root, then of each scope down to this one (the root trips first). */
  #checkSpendFromRoot(): void {
    if (this.parent !== undefined) this.parent.#checkSpendFromRoot();
    this.#checkSpend();
  }

  /**
   * Counts one sub-call here and in every ancestor. Returns false (and stops the scope whose cap
   * it crosses) when the call would exceed a `maxSubcalls` cap; the call must then not run.
   */
  reserveSubcall(): boolean {
    const chain = this.#chain().reverse();
    for (const scope of chain) {
      const max = scope.#limits.maxSubcalls;
      if (max !== undefined && scope.#subcalls + 1 > max) {
        this.#countRefused();
        scope.#trip({ limit: 'subcalls', used: scope.#subcalls + 1, max });
        return false;
      }
    }
    for (const scope of chain) scope.#subcalls += 1;
    return true;
  }

  /** What is left, counting every ancestor's cap (the tightest wins). */
  remaining(): BudgetRemaining {
    let tokens: number | null = null;
    let costUsd: number | null = null;
    let subcalls: number | null = null;
    const tighter = (current: number | null, next: number) =>
      Math.max(0, current === null ? next : Math.min(current, next));
    for (const scope of this.#chain()) {
      const { maxTokens, maxCostUsd, maxSubcalls } = scope.#limits;
      if (maxTokens !== undefined) tokens = tighter(tokens, maxTokens - tokensOf(scope.#usage));
      if (maxCostUsd !== undefined) {
        costUsd = tighter(costUsd, maxCostUsd - totalUsage(scope.#usage).costUsd);
      }
      if (maxSubcalls !== undefined) subcalls = tighter(subcalls, maxSubcalls - scope.#subcalls);
    }
    const wallTimeMs =
      this.deadlineAt === undefined ? null : Math.max(0, this.deadlineAt - this.#now());
    return { tokens, costUsd, subcalls, wallTimeMs };
  }

  /** Removes listeners and timers; call when the run that owns the scope ends. */
  release(): void {
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
  }

  #chain(): BudgetScope[] {
    const chain: BudgetScope[] = [];
    for (let scope: BudgetScope | undefined = this; scope !== undefined; scope = scope.parent) {
      chain.push(scope);
    }
    return chain;
  }

  #root(): BudgetScope {
    let scope: BudgetScope = this;
    while (scope.parent !== undefined) scope = scope.parent;
    return scope;
  }

  #capsSpend(): boolean {
    return this.#limits.maxTokens !== undefined || this.#limits.maxCostUsd !== undefined;
  }

  /** Counts one refused call here and in every ancestor. */
  #countRefused(): void {
    for (let scope: BudgetScope | undefined = this; scope !== undefined; scope = scope.parent) {
      scope.#refused += 1;
    }
  }

  /** Holds `estimate` in every scope of the chain that caps spend. */
  #hold(estimate: CallEstimate): Reservation {
    const reservation: Reservation = { estimate };
    // Only a scope with a token or cost cap ever reads its reservations.
    for (const scope of this.#chain()) if (scope.#capsSpend()) scope.#reservations.add(reservation);
    return reservation;
  }

  /** Refuses a call: stops the scope whose cap is spent and counts the refusal. */
  #refuse(admission: Extract<Admission, { kind: 'refuse' }>): RlmError {
    const { refusal, scope } = admission;
    this.#countRefused();
    // A spent cap (nothing in flight can make room) stops the scope, as a charge crossing it does.
    scope.#trip({ limit: refusal.limit, used: refusal.spent, max: refusal.max });
    return refusalError(refusal);
  }

  /** Whether every scope from the root down to this one can take `estimate` now. */
  #admission(estimate: CallEstimate, essential: boolean): Admission {
    let wait = false;
    for (const scope of this.#chain().reverse()) {
      const verdict = scope.#verdict(estimate, essential);
      if (verdict === 'fits') continue;
      if (verdict === 'full') wait = true;
      else return { kind: 'refuse', refusal: verdict, scope };
    }
    return wait ? { kind: 'wait' } : { kind: 'admit' };
  }

  /** Admits the root's waiters in order, up to the first that must keep waiting. */
  #pump(): void {
    // Refusing a waiter can stop scopes, whose aborts re-enter here: the running loop sees them.
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (let head = this.#waiters[0]; head !== undefined; head = this.#waiters[0]) {
        const admission = head.scope.#admission(head.estimate, false);
        if (admission.kind === 'wait') return;
        this.#waiters.shift();
        if (admission.kind === 'admit') head.admit(head.scope.#hold(head.estimate));
        else head.refuse(head.scope.#refuse(admission));
      }
    } finally {
      this.#pumping = false;
    }
  }

  /**
   * Whether this scope can take `estimate`: it fits now, it is `full` until calls in flight
   * settle, or (a refusal) the cap is spent.
   */
  #verdict(estimate: CallEstimate, essential: boolean): 'fits' | 'full' | Refusal {
    if (!this.#capsSpend()) return 'fits';
    const { maxTokens, maxCostUsd } = this.#limits;
    let reservedTokens = 0;
    let reservedCost = 0;
    for (const held of this.#reservations) {
      reservedTokens += held.estimate.tokens;
      reservedCost += held.estimate.costUsd;
    }
    const check = (
      limit: 'tokens' | 'cost',
      {
        spent,
        reserved,
        need,
        max,
      }: { spent: number; reserved: number; need: number; max: number },
    ): 'fits' | 'full' | Refusal => {
      if (spent >= max) return { limit, spent, max };
      if (essential || this.#reservations.size === 0 || spent + reserved + need <= max) {
        return 'fits';
      }
      return 'full';
    };
    const tokens =
      maxTokens === undefined
        ? 'fits'
        : check('tokens', {
            spent: tokensOf(this.#usage),
            reserved: reservedTokens,
            need: estimate.tokens,
            max: maxTokens,
          });
    if (typeof tokens === 'object') return tokens;
    const cost =
      maxCostUsd === undefined
        ? 'fits'
        : check('cost', {
            spent: totalUsage(this.#usage).costUsd,
            reserved: reservedCost,
            need: estimate.costUsd,
            max: maxCostUsd,
          });
    if (typeof cost === 'object') return cost;
    return tokens === 'full' || cost === 'full' ? 'full' : 'fits';
  }

  #checkSpend(): void {
    const { maxTokens, maxCostUsd } = this.#limits;
    // Most scopes cap neither: nothing to total (two passes over the usage, every charge).
    if (maxTokens === undefined && maxCostUsd === undefined) return;
    const cost = totalUsage(this.#usage).costUsd;
    if (maxCostUsd !== undefined && cost > maxCostUsd) {
      this.#trip({ limit: 'cost', used: cost, max: maxCostUsd });
      return;
    }
    const tokens = tokensOf(this.#usage);
    if (maxTokens !== undefined && tokens > maxTokens) {
      this.#trip({ limit: 'tokens', used: tokens, max: maxTokens });
    }
  }

  #trip(hit: { limit: LimitName; used: number; max: number }): void {
    if (this.#stop !== null) return;
    const status = hit.limit === 'wall_time' ? 'timeout' : 'budget_exceeded';
    this.#onLimitHit?.(hit);
    this.stop({ status, ...hit });
  }

  #armDeadline(deadlineAt: number): void {
    const startedAt = this.#now();
    const timer = setTimeout(
      () =>
        this.#trip({
          limit: 'wall_time',
          used: this.#now() - startedAt,
          max: deadlineAt - startedAt,
        }),
      Math.max(0, deadlineAt - startedAt),
    );
    this.#cleanups.push(() => clearTimeout(timer));
  }
}

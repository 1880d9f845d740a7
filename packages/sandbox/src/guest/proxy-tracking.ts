import {
  call,
  dataDescriptor,
  defineProperty,
  getOwnPropertyDescriptor,
  isAccessor,
  record,
} from './primordials.js';

/**
 * Every Proxy the guest makes, kept so that the variable listing can tell a Proxy without asking
 * it anything: QuickJS offers no check that runs none of its traps (`getPrototypeOf`,
 * `getOwnPropertyDescriptor`, a `get` of `name` when its source text is built, …).
 *
 * The prelude captures the real constructor and puts in its place a Proxy of it whose only trap
 * is `construct`; `Proxy.revocable` becomes a Proxy of the real one whose only trap is `apply`.
 * Everything else (`typeof`, `name`, `length`, the missing `prototype`, the TypeError without
 * `new`, the native source text) is forwarded to the real functions, so the guest sees the same
 * `Proxy`. The handlers have no prototype, so no trap can be added through `Object.prototype`.
 * Weak: it keeps no Proxy alive.
 */
const RealProxy = Proxy;
const constructProxy = Reflect.construct;
const ProxyWeakSet = WeakSet;
const weakSetAdd = WeakSet.prototype.add;
const weakSetHas = WeakSet.prototype.has;

const proxiesMade = new ProxyWeakSet<object>();

function remember(value: unknown): void {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    call(weakSetAdd, proxiesMade, [value]);
  }
}

/** Whether `value` is a Proxy the guest made (or one of the prelude's own). Runs no guest code. */
export function isProxy(value: unknown): boolean {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return false;
  return call<boolean>(weakSetHas, proxiesMade, [value]);
}

/** Replaces the global `Proxy` by one that records every Proxy it makes (see above). */
export function trackProxies(): void {
  const global = globalThis as unknown as object;
  const slot = getOwnPropertyDescriptor(global, 'Proxy');
  if (slot === undefined || isAccessor(slot)) return;
  const revocableSlot = getOwnPropertyDescriptor(RealProxy, 'revocable');
  if (revocableSlot !== undefined && !isAccessor(revocableSlot)) {
    const revocableTraps = record<ProxyHandler<(...args: unknown[]) => unknown>>();
    revocableTraps.apply = (target, receiver, args) => {
      const pair: unknown = call(target, receiver, args);
      // The pair is a fresh ordinary object with an own data `proxy`: reading it runs no code.
      const proxySlot = getOwnPropertyDescriptor(pair as object, 'proxy');
      if (proxySlot !== undefined && !isAccessor(proxySlot)) remember(proxySlot.value);
      return pair;
    };
    const revocable = new RealProxy(revocableSlot.value, revocableTraps);
    remember(revocable);
    defineProperty(RealProxy, 'revocable', sameFlags(revocableSlot, revocable));
  }
  const constructTraps = record<ProxyHandler<ProxyConstructor>>();
  constructTraps.construct = (target, args, newTarget) => {
    const proxy = constructProxy(target, args, newTarget) as object;
    remember(proxy);
    return proxy;
  };
  const tracking = new RealProxy(RealProxy, constructTraps);
  remember(tracking);
  defineProperty(global, 'Proxy', sameFlags(slot, tracking));
}

/** A data descriptor holding `value` with the flags of `like`. */
function sameFlags(like: PropertyDescriptor, value: unknown): PropertyDescriptor {
  const descriptor = dataDescriptor(value, like.enumerable === true);
  descriptor.writable = like.writable === true;
  descriptor.configurable = like.configurable === true;
  return descriptor;
}

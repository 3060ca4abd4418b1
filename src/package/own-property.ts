/**
 * Keys that come from outside (frontmatter keys, tool-call ids, environment names) are set
 * through here. A plain assignment of `__proto__` sets the object's prototype instead of a key,
 * so a frontmatter key or a call id spelled that way would silently vanish.
 */
export function setOwnProperty<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

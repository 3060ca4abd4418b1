import { InvalidArgumentError } from "commander";

/** Commander turns these throws into usage errors (exit 2) that name the option. */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return Number(value);
}

/** A TCP port; 0 asks the system for a free one. */
export function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError("expected a port number from 0 to 65535");
  return Number(value);
}

/** A count where 0 means "off" (e.g. a timeout that never fires). */
export function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number (0 or more)");
  return Number(value);
}

/** Seconds, fractions allowed (`0.5`), more than 0. */
export function positiveSeconds(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError("expected a positive number of seconds (e.g. 5 or 0.5)");
  return Number(value);
}

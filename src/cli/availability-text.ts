import type { Availability } from "../access/types.js";

/** One short phrase for a person: why an allowed skill cannot be used here, or null when it can. */
export function availabilityProblem(availability: Availability | undefined): string | null {
  if (!availability || availability.status === "available") return null;
  if (availability.status === "unavailable") return `unavailable: missing ${availability.missing.join(", ")}`;
  return `invalid requirements: ${availability.message}`;
}

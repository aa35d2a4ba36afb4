// Go duration strings as the schemas allow them (2160h, 10m, 1h30m, 0.5h, 0s), in milliseconds.
const units: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined for text that is not a duration. */
export function parseDuration(text: string | undefined): number | undefined {
  const value = text?.trim() ?? '';
  if (!/^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/.test(value)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of value.matchAll(/(\d+(\.\d+)?)(ns|us|ms|s|m|h)/g)) total += Number(amount) * units[unit!]!;
  return total;
}

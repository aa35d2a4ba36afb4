// metav1.MicroTime: RFC 3339 with exactly six fractional digits (Lease renewals, Event times).
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

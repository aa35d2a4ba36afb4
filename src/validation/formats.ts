// OpenAPI formats as the API server checks them (the Go strfmt rules, not JSON Schema's), for the ajv
// validators. The API server ignores formats it does not know; it checks the ones in apiServerFormats.

/** Formats the API server validates in custom resources (apiextensions-apiserver's supported formats). */
export const apiServerFormats = new Set([
  'bsonobjectid',
  'uri',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'cidr',
  'mac',
  'uuid',
  'uuid3',
  'uuid4',
  'uuid5',
  'isbn',
  'isbn10',
  'isbn13',
  'creditcard',
  'ssn',
  'hexcolor',
  'rgbcolor',
  'byte',
  'password',
  'date',
  'duration',
  'datetime',
  'date-time',
  'k8s-short-name',
  'k8s-long-name',
]);

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const fullDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const time = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** Go's time.Parse("2006-01-02", s): four-digit year, real month and day of that month. */
function isFullDate(s: string): boolean {
  const m = fullDate.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** strfmt.IsDateTime: a full date, "T", hh:mm:ss with optional fraction, and Z or an offset. */
export function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isFullDate(parts[0]!)) return false;
  const m = time.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

export function isUuid(s: string): boolean {
  return uuid.test(s);
}

const int32Range = (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
const int64Range = (n: number) => Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;

/** ajv format definitions; the generated validators refer to this object by name. */
export const kubeFormats = {
  'date-time': { type: 'string', validate: isDateTime },
  datetime: { type: 'string', validate: isDateTime },
  uuid: { type: 'string', validate: isUuid },
  int32: { type: 'number', validate: int32Range },
  int64: { type: 'number', validate: int64Range },
} as const;

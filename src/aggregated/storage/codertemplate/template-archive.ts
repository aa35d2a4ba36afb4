// A template's source as Coder stores it, a tar archive, and its files as CoderTemplate spec.files shows
// them: path rules, limits, UTF-8 text only, and the merge that keeps what spec.files
// cannot show (binary files, file modes).
import { posix } from 'node:path';

const block = 512;
/** Limits of the Go original: archive, total extracted, entries, one file. */
export const archiveLimits = { archiveBytes: 20 * 1024 * 1024, totalBytes: 40 * 1024 * 1024, entries: 2000, fileBytes: 2 * 1024 * 1024 };

export interface ArchiveEntry {
  path: string;
  mode: number;
  data: Buffer;
}

/** A path of spec.files or of an archive entry, in its one normal form; throws what is wrong with it. */
export function normalizeArchivePath(path: string): string {
  if (path === '') throw new Error('a path must not be empty');
  if (path.includes('\\')) throw new Error(`path "${path}" must not contain "\\"`);
  if (path.startsWith('/')) throw new Error(`path "${path}" must be relative`);
  if (path.split('/').includes('..')) throw new Error(`path "${path}" must not contain ".."`);
  const normal = posix.normalize(path).replace(/\/+$/, '');
  if (normal === '.' || normal === '') throw new Error(`path "${path}" names no file`);
  return normal;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of `data`, or undefined when it is not valid UTF-8 (such files are left out of spec.files). */
export function utf8Text(data: Buffer): string | undefined {
  try {
    return utf8.decode(data);
  } catch {
    return undefined;
  }
}

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

const octal = (header: Buffer, offset: number, length: number) => parseInt(field(header, offset, length).trim() || '0', 8);

/** PAX extended header records: "<len> key=value\n". */
function paxPath(data: Buffer): string | undefined {
  let rest = data.toString('utf8');
  while (rest.length) {
    const space = rest.indexOf(' ');
    const length = Number(rest.slice(0, space));
    if (!Number.isInteger(length) || length <= 0) return undefined;
    const record = rest.slice(space + 1, length - 1);
    if (record.startsWith('path=')) return record.slice(5);
    rest = rest.slice(length);
  }
  return undefined;
}

/** The regular files of a tar archive (directories, links and the like are skipped); throws when it is malformed or too large. */
export function readTar(archive: Buffer): ArchiveEntry[] {
  if (archive.length > archiveLimits.archiveBytes) throw new Error(`the archive is larger than ${archiveLimits.archiveBytes} bytes`);
  const entries: ArchiveEntry[] = [];
  let total = 0;
  let longPath: string | undefined;
  for (let offset = 0; offset + block <= archive.length;) {
    const header = archive.subarray(offset, offset + block);
    if (header.every((b) => b === 0)) break;
    const stored = octal(header, 148, 8);
    let sum = 0;
    for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
    if (sum !== stored) throw new Error(`the archive has a damaged header at byte ${offset}`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const data = archive.subarray(offset + block, offset + block + size);
    if (data.length < size) throw new Error('the archive ends inside an entry');
    offset += block + Math.ceil(size / block) * block;
    if (type === 'x') longPath = paxPath(data) ?? longPath;
    else if (type === 'L') longPath = field(data, 0, data.length);
    if (type !== '0' && type !== '\0') {
      if (type !== 'x' && type !== 'L') longPath = undefined;
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = longPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longPath = undefined;
    if (entries.length >= archiveLimits.entries) throw new Error(`the archive has more than ${archiveLimits.entries} files`);
    if (size > archiveLimits.fileBytes) throw new Error(`file "${name}" is larger than ${archiveLimits.fileBytes} bytes`);
    total += size;
    if (total > archiveLimits.totalBytes) throw new Error(`the archive holds more than ${archiveLimits.totalBytes} bytes`);
    entries.push({ path: normalizeArchivePath(name), mode: octal(header, 100, 8) & 0o7777, data: Buffer.from(data) });
  }
  return entries;
}

function writeField(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, Math.min(length, Buffer.byteLength(value)), 'utf8');
}

const octalField = (value: number, length: number) => `${value.toString(8).padStart(length - 1, '0')}\0`;

function tarHeader(name: string, size: number, mode: number, type: string): Buffer {
  const header = Buffer.alloc(block);
  writeField(header, 0, 100, name);
  writeField(header, 100, 8, octalField(mode, 8));
  writeField(header, 108, 8, octalField(0, 8));
  writeField(header, 116, 8, octalField(0, 8));
  writeField(header, 124, 12, octalField(size, 12));
  writeField(header, 136, 12, octalField(0, 12));
  header[156] = type.charCodeAt(0);
  writeField(header, 257, 6, 'ustar\0');
  writeField(header, 263, 2, '00');
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of header) sum += b;
  writeField(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

const padding = (size: number) => Buffer.alloc((block - (size % block)) % block);

/** A tar archive of `entries`, sorted by path; a path longer than the header's 100 bytes goes in a PAX record. */
export function writeTar(entries: ArchiveEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (Buffer.byteLength(entry.path) > 99) {
      const body = ` path=${entry.path}\n`;
      let length = Buffer.byteLength(body);
      length += String(length + String(length).length).length;
      const record = Buffer.from(`${length}${body}`);
      parts.push(tarHeader('PaxHeader', record.length, 0o644, 'x'), record, padding(record.length));
    }
    parts.push(tarHeader(entry.path.slice(0, 99), entry.data.length, entry.mode, '0'), entry.data, padding(entry.data.length));
  }
  parts.push(Buffer.alloc(2 * block));
  return Buffer.concat(parts);
}

/** spec.files of an archive: its UTF-8 files by normal path. */
export function filesOf(entries: ArchiveEntry[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of entries) {
    const text = utf8Text(entry.data);
    if (text !== undefined) files[entry.path] = text;
  }
  return files;
}

/** spec.files by normal path; throws (naming the path) for a bad path, two keys of one path, or a too large file. */
export function normalizeFiles(files: unknown): Map<string, string> {
  if (files === null || typeof files !== 'object' || Array.isArray(files)) throw new Error('spec.files must be a map of path to text');
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(files)) {
    if (typeof value !== 'string') throw new Error(`spec.files["${key}"] must be a string`);
    const path = normalizeArchivePath(key);
    if (out.has(path)) throw new Error(`spec.files has two keys for path "${path}"`);
    if (Buffer.byteLength(value) > archiveLimits.fileBytes)
      throw new Error(`spec.files["${key}"] is larger than ${archiveLimits.fileBytes} bytes`);
    out.set(path, value);
  }
  if (out.size > archiveLimits.entries) throw new Error(`spec.files has more than ${archiveLimits.entries} files`);
  return out;
}

/** Whether `wanted` holds exactly the text files of `current`. */
export function sameFiles(wanted: Map<string, string>, current: Record<string, string>): boolean {
  const keys = Object.keys(current);
  return keys.length === wanted.size && keys.every((k) => wanted.get(k) === current[k]);
}

/**
 * The entries of the new archive: every wanted file (keeping the mode it had), and every file of the
 * current archive that is not UTF-8 text and not replaced (spec.files cannot show it, so cannot mean to drop it).
 */
export function mergeEntries(wanted: Map<string, string>, current: ArchiveEntry[]): ArchiveEntry[] {
  const byPath = new Map(current.map((e) => [e.path, e]));
  const out: ArchiveEntry[] = [...wanted].map(([path, text]) => ({ path, mode: byPath.get(path)?.mode ?? 0o644, data: Buffer.from(text) }));
  for (const entry of current) if (!wanted.has(entry.path) && utf8Text(entry.data) === undefined) out.push(entry);
  return out;
}

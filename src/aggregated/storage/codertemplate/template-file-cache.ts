// Template archives downloaded from Coder, kept by Coder URL and file id. A file never changes once
// uploaded (coder/coder v2.26.1 coderd/files.go: stored once, found again by its hash), and Coder allows
// 12 requests a minute per user and path under /api/v2/files (coderd/coderd.go FilesRateLimit,
// coderd/httpmw/ratelimit.go): reading a template's spec.files on every get would soon wait on that limit.
// Least recently used archives go first once the cache holds more than its bytes.

/** 64 MiB: thousands of ordinary templates, or three archives at the 20 MiB limit. */
export const defaultFileCacheBytes = 64 * 1024 * 1024;

export class TemplateFileCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer>>();
  private bytes = 0;
  readonly maxBytes: number;

  constructor(maxBytes = defaultFileCacheBytes) {
    this.maxBytes = maxBytes;
  }

  /** The archive of `fileId` at the Coder of `origin`: from the cache, from a download in flight, or from `download`. */
  get(origin: string, fileId: string, download: () => Promise<Buffer>): Promise<Buffer> {
    const key = `${origin} ${fileId}`;
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return Promise.resolve(cached);
    }
    const inFlight = this.loading.get(key);
    if (inFlight) return inFlight;
    const load = download().then(
      (data) => {
        this.loading.delete(key);
        this.put(origin, fileId, data);
        return data;
      },
      (err: unknown) => {
        this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, load);
    return load;
  }

  /** Keeps an archive whose bytes are known (one just uploaded); one larger than the whole cache is not kept. */
  put(origin: string, fileId: string, data: Buffer): void {
    const key = `${origin} ${fileId}`;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.length;
    }
    if (data.length > this.maxBytes) return;
    this.entries.set(key, data);
    this.bytes += data.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.length;
    }
  }

  /** What the cache holds now, for tests and metrics. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

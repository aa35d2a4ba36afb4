// What the operator's resident memory is made of near its highest during a run: it reads the process's resident
// memory (Linux /proc) twice a second and, when it is 2 MiB above the highest so far, the operator's own metrics,
// at most once in 10 s, as a Prometheus server would scrape them: a scrape renders a series per control plane
// (at 5,000 control planes, with a scrape up to twice a second, the operator peaked at 285 MiB, without any at
// 254). They are split into V8's heap spaces, memory outside the heap (Buffers), and the rest (the mapped
// Node.js binary, stacks, the allocator's free lists).
import { parseSamples } from '../../harness/prometheus.ts';
import { rssMiB } from './process-stats.ts';

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const scrapeIntervalMs = 10_000;

export function watchMemoryPeak(pid: number, metricsUrl: string): { stop(): Promise<string> } {
  let peak: ReturnType<typeof parseSamples> | undefined;
  let peakRss = 0;
  let stopped = false;
  let lastScrape = -Infinity;
  const loop = (async () => {
    while (!stopped) {
      if ((await rssMiB(pid)) * 1024 * 1024 > peakRss + 2 * 1024 * 1024 && performance.now() - lastScrape >= scrapeIntervalMs) {
        lastScrape = performance.now();
        const samples = parseSamples(await (await fetch(metricsUrl)).text());
        const rss = samples.find((s) => s.name === 'process_resident_memory_bytes')?.value ?? 0;
        if (rss > peakRss) [peakRss, peak] = [rss, samples];
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      if (!peak) return 'no reading';
      const value = (name: string) => peak!.find((s) => s.name === name)?.value ?? 0;
      const heapTotal = value('nodejs_heap_size_total_bytes');
      const external = value('nodejs_external_memory_bytes');
      const spaces = peak
        .filter((s) => s.name === 'nodejs_heap_space_size_total_bytes' && s.value >= 1024 * 1024)
        .map((s) => `${s.labels.space} ${mib(s.value)}`)
        .join(', ');
      return (
        `RSS ${mib(peakRss)} MiB = V8 heap ${mib(heapTotal)} (${mib(value('nodejs_heap_size_used_bytes'))} in use; ${spaces}) ` +
        `+ outside the heap ${mib(external)} + the rest ${mib(peakRss - heapTotal - external)}`
      );
    },
  };
}

/**
 * The functions' own output, as Lambda would collect it: Powertools writes its log lines and EMF
 * metric lines straight to stdout and stderr (not through `console`), so tests read them there.
 */

/** Lines written to stdout and stderr while capturing. */
export interface CapturedOutput {
  /** Every line written since capturing started. */
  readonly lines: string[];
  /** The lines that are JSON objects, parsed. */
  json(): Record<string, unknown>[];
  /** The EMF metric lines' counts, summed by metric name (and `reason` for `Denied`). */
  metricCounts(): Record<string, number>;
  /** Stops capturing. */
  restore(): void;
}

/** Captures what the process writes to stdout and stderr until `restore()`. */
export function captureOutput(): CapturedOutput {
  const lines: string[] = [];
  const originals = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = ((chunk: string | Uint8Array) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    }) as typeof stream.write;
    return () => {
      stream.write = write;
    };
  });
  const json = () =>
    lines.flatMap((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return value && typeof value === 'object' ? [value as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
  return {
    lines,
    json,
    metricCounts() {
      const counts: Record<string, number> = {};
      for (const line of json()) {
        const aws = line._aws as
          { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } | undefined;
        if (!aws) continue;
        for (const { Name } of aws.CloudWatchMetrics.flatMap((set) => set.Metrics)) {
          const key = Name === 'Denied' ? `Denied:${String(line.reason)}` : Name;
          counts[key] = (counts[key] ?? 0) + Number(line[Name]);
        }
      }
      return counts;
    },
    restore: () => originals.forEach((restore) => restore()),
  };
}

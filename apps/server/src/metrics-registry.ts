import { monitorEventLoopDelay } from 'node:perf_hooks';

type Labels = Readonly<Record<string, string>>;

interface Series {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, { labels: Labels; value: number }>;
  /** Gauges computed at scrape time. */
  collect?: () => readonly { labels: Labels; value: number }[];
}

/** A labelled counter. */
export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

/** Prometheus metrics for one server instance (no global registry: two servers never share). */
export interface MetricsRegistry {
  counter(name: string, help: string): Counter;
  /** A gauge whose samples are read when `/metrics` is scraped. */
  gauge(
    name: string,
    help: string,
    collect: () => readonly { labels: Labels; value: number }[],
  ): void;
  /** The exposition text (format 0.0.4). */
  render(): string;
  /** Stops the event-loop monitor. */
  close(): void;
}

/** Creates a registry with `rlm_event_loop_lag_seconds` built in. */
export function createMetricsRegistry(): MetricsRegistry {
  const series = new Map<string, Series>();
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();

  function define(entry: Omit<Series, 'values'>): Series {
    const existing = series.get(entry.name);
    if (existing !== undefined) return existing;
    const created: Series = { ...entry, values: new Map() };
    series.set(entry.name, created);
    return created;
  }

  const registry: MetricsRegistry = {
    counter(name, help) {
      const entry = define({ name, help, type: 'counter' });
      return {
        inc(labels = {}, by = 1) {
          const key = JSON.stringify(Object.entries(labels).sort());
          const current = entry.values.get(key) ?? { labels, value: 0 };
          current.value += by;
          entry.values.set(key, current);
        },
      };
    },
    gauge(name, help, collect) {
      define({ name, help, type: 'gauge', collect });
    },
    render() {
      const lines: string[] = [];
      for (const entry of series.values()) {
        lines.push(`# HELP ${entry.name} ${entry.help}`, `# TYPE ${entry.name} ${entry.type}`);
        const samples = entry.collect?.() ?? [...entry.values.values()];
        for (const { labels, value } of samples) {
          lines.push(`${entry.name}${formatLabels(labels)} ${formatNumber(value)}`);
        }
      }
      return `${lines.join('\n')}\n`;
    },
    close() {
      loop.disable();
    },
  };
  registry.gauge(
    'rlm_event_loop_lag_seconds',
    'Event-loop delay of the server process (p99 and max since start).',
    () => [
      { labels: { quantile: '0.99' }, value: loop.percentile(99) / 1e9 },
      { labels: { quantile: '1' }, value: loop.max / 1e9 },
    ],
  );
  return registry;
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const escaped = entries.map(
    ([key, value]) =>
      `${key}="${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`,
  );
  return `{${escaped.join(',')}}`;
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

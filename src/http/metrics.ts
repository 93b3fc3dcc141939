// Prometheus text exposition: request counts and latency histograms by route, plus gauges that
// other modules register (slice sizes, load figures).

const BUCKETS_MS = [1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 2500, 10000];

interface Histogram { counts: number[]; sum: number; count: number }

export class Metrics {
  private readonly requests = new Map<string, Map<number, number>>();
  private readonly latency = new Map<string, Histogram>();
  private readonly counters = new Map<string, { help: string; value: number }>();
  private readonly gauges: { name: string; help: string; read: () => [Record<string, string>, number][] }[] = [];

  observe(route: string, status: number, ms: number): void {
    let byStatus = this.requests.get(route);
    if (!byStatus) this.requests.set(route, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let h = this.latency.get(route);
    if (!h) this.latency.set(route, (h = { counts: new Array<number>(BUCKETS_MS.length).fill(0), sum: 0, count: 0 }));
    for (let i = 0; i < BUCKETS_MS.length; i++) if (ms <= BUCKETS_MS[i]) h.counts[i]++;
    h.sum += ms;
    h.count++;
  }

  increment(name: string, help: string, by = 1): void {
    const c = this.counters.get(name) ?? { help, value: 0 };
    c.value += by;
    this.counters.set(name, c);
  }

  gauge(name: string, help: string, read: () => [Record<string, string>, number][]): void {
    this.gauges.push({ name, help, read });
  }

  render(): string {
    const out: string[] = [];
    out.push("# HELP leidex_http_requests_total HTTP requests by route and status.", "# TYPE leidex_http_requests_total counter");
    for (const [route, byStatus] of this.requests) {
      for (const [status, n] of byStatus) out.push(`leidex_http_requests_total{route="${route}",status="${status}"} ${n}`);
    }
    out.push("# HELP leidex_http_request_duration_ms Request latency by route.", "# TYPE leidex_http_request_duration_ms histogram");
    for (const [route, h] of this.latency) {
      BUCKETS_MS.forEach((b, i) => out.push(`leidex_http_request_duration_ms_bucket{route="${route}",le="${b}"} ${h.counts[i]}`));
      out.push(`leidex_http_request_duration_ms_bucket{route="${route}",le="+Inf"} ${h.count}`);
      out.push(`leidex_http_request_duration_ms_sum{route="${route}"} ${h.sum.toFixed(3)}`);
      out.push(`leidex_http_request_duration_ms_count{route="${route}"} ${h.count}`);
    }
    for (const [name, c] of this.counters) out.push(`# HELP ${name} ${c.help}`, `# TYPE ${name} counter`, `${name} ${c.value}`);
    for (const g of this.gauges) {
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      for (const [labels, v] of g.read()) {
        const l = Object.entries(labels).map(([k, val]) => `${k}="${val}"`).join(",");
        out.push(`${g.name}${l ? `{${l}}` : ""} ${v}`);
      }
    }
    return out.join("\n") + "\n";
  }
}

// Prometheus metrics through prom-client, one registry per server: request counts and latency
// histograms by route (seconds, as Prometheus wants base units), counters and gauges that other
// modules register (slice sizes, load figures, webhook dispatch), and prom-client's default
// process and Node.js runtime metrics. Every request is observed on the front's hot path, where
// a prom-client child costs about 2 µs (it hashes its labels on each call): requests are counted
// in plain arrays here, which the registry reads only when it is scraped.

import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from "prom-client";
import type { FrontCounts } from "./front-protocol.js";

const BUCKETS_SECONDS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

type GaugeRead = () => [Record<string, string>, number][];

/** A value of a metric read at scrape time, as prom-client's registry formats it. */
interface ScrapedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** One route's requests: counts by status, and its latency histogram (cumulative at render). */
interface RouteRequests {
  byStatus: Map<number, number>;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * prom-client's event-loop lag gauges read periods of a sampling timer, that period included, and
 * a stall shows only by how late the timer fires. At 100 ms an idle server read 0.1 s, and a
 * stall shorter than the period could read as none: prom-client's own 10 ms, as other services.
 */
const EVENT_LOOP_SAMPLE_MS = 10;

export class Metrics {
  private readonly registry = new Registry();
  private readonly routes = new Map<string, RouteRequests>();
  private readonly counters = new Map<string, { help: string; value: number }>();
  /** what the front threads counted, as of the last scrape */
  private remote: FrontCounts[] = [];
  /** asks the front threads for their counts (front-threads.ts) */
  private remoteSource: (() => Promise<FrontCounts[]>) | null = null;

  /** `process`: the process's and Node's own metrics too (a front thread leaves them to the main thread) */
  constructor(process = true) {
    if (!process) return;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // gauges named like counters, which `promtool check metrics` refuses; the same counts stay
    // by type in nodejs_active_handles, nodejs_active_requests and nodejs_active_resources
    for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
      this.registry.removeSingleMetric(name);
    this.scraped("leidex_http_requests_total", "HTTP requests by route and status.", "counter", () => this.requestValues());
    this.scraped("leidex_http_request_duration_seconds", "Request latency by route, in seconds.", "histogram", () => this.latencyValues());
  }

  /** The Content-Type of render()'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  observe(route: string, status: number, ms: number): void {
    let r = this.routes.get(route);
    if (!r)
      this.routes.set(route, (r = { byStatus: new Map(), buckets: new Array<number>(BUCKETS_SECONDS.length).fill(0), sum: 0, count: 0 }));
    r.byStatus.set(status, (r.byStatus.get(status) ?? 0) + 1);
    const seconds = ms / 1000;
    const i = BUCKETS_SECONDS.findIndex((b) => seconds <= b);
    if (i >= 0) r.buckets[i]++;
    r.sum += seconds;
    r.count++;
  }

  /** Adds `by` to a counter, made at its first use (an increment of 0 makes it show from the start). */
  increment(name: string, help: string, by = 1): void {
    this.counterNamed(name, help).value += by;
  }

  private counterNamed(name: string, help: string): { help: string; value: number } {
    let counter = this.counters.get(name);
    if (!counter) {
      const made = (counter = { help: help || name, value: 0 });
      this.counters.set(name, made);
      const remoteValue = (): number => this.remote.reduce((sum, c) => sum + (c.counters.find(([n]) => n === name)?.[2] ?? 0), 0);
      this.scraped(name, made.help, "counter", () => [{ labels: {}, value: made.value + remoteValue() }]);
    }
    return counter;
  }

  /** What this thread counted, for the main thread's scrape (a front thread's). */
  counts(shardRequests: readonly number[], received: number): FrontCounts {
    return {
      received,
      routes: [...this.routes].map(([route, r]) => [route, { byStatus: [...r.byStatus], buckets: r.buckets, sum: r.sum, count: r.count }]),
      counters: [...this.counters].map(([name, c]) => [name, c.help, c.value]),
      shardRequests: [...shardRequests],
    };
  }

  /** Where the front threads' counts come from: asked at every scrape, and added to this thread's. */
  countsOf(source: () => Promise<FrontCounts[]>): void {
    this.remoteSource = source;
  }

  /** A gauge whose values `read` gives whenever the metrics are scraped. */
  gauge(name: string, help: string, read: GaugeRead, labelNames: string[] = []): void {
    this.readAtScrape("gauge", name, help, read, labelNames);
  }

  /** A counter whose values `read` gives whenever the metrics are scraped (counts kept elsewhere). */
  counterFrom(name: string, help: string, read: GaugeRead, labelNames: string[] = []): void {
    this.readAtScrape("counter", name, help, read, labelNames);
  }

  private readAtScrape(type: "gauge" | "counter", name: string, help: string, read: GaugeRead, labelNames: string[]): void {
    const options = { name, help, labelNames, registers: [this.registry] };
    if (type === "gauge")
      new Gauge({
        ...options,
        collect() {
          this.reset();
          for (const [labels, value] of read()) this.set(labels, value);
        },
      });
    else
      new Counter({
        ...options,
        collect() {
          this.reset();
          for (const [labels, value] of read()) this.inc(labels, value);
        },
      });
  }

  async render(): Promise<string> {
    if (this.remoteSource) {
      this.remote = await this.remoteSource();
      for (const c of this.remote) for (const [name, help] of c.counters) this.counterNamed(name, help);
    }
    return this.registry.metrics();
  }

  /** Every thread's requests of each route: this one's and the front threads' as of this scrape. */
  private allRoutes(): Map<string, RouteRequests> {
    if (this.remote.length === 0) return this.routes;
    const all = new Map<string, RouteRequests>();
    const add = (route: string, r: { byStatus: Iterable<[number, number]>; buckets: number[]; sum: number; count: number }): void => {
      let into = all.get(route);
      if (!into)
        all.set(route, (into = { byStatus: new Map(), buckets: new Array<number>(BUCKETS_SECONDS.length).fill(0), sum: 0, count: 0 }));
      for (const [status, n] of r.byStatus) into.byStatus.set(status, (into.byStatus.get(status) ?? 0) + n);
      r.buckets.forEach((n, i) => (into.buckets[i] += n));
      into.sum += r.sum;
      into.count += r.count;
    };
    for (const [route, r] of this.routes) add(route, r);
    for (const c of this.remote) for (const [route, r] of c.routes) add(route, r);
    return all;
  }

  /** A metric whose values are read at each scrape: prom-client's registry takes any object with get(). */
  private scraped(name: string, help: string, type: "counter" | "histogram", values: () => ScrapedValue[]): void {
    const get = (): object => ({ name, help, type, aggregator: "sum", values: values() });
    this.registry.registerMetric({ name, help, type, aggregator: "sum", get } as unknown as Metric);
  }

  private requestValues(): ScrapedValue[] {
    const out: ScrapedValue[] = [];
    for (const [route, r] of this.allRoutes()) for (const [status, value] of r.byStatus) out.push({ labels: { route, status }, value });
    return out;
  }

  private latencyValues(): ScrapedValue[] {
    const name = "leidex_http_request_duration_seconds";
    const out: ScrapedValue[] = [];
    for (const [route, r] of this.allRoutes()) {
      let cumulative = 0;
      BUCKETS_SECONDS.forEach((le, i) => {
        cumulative += r.buckets[i];
        out.push({ metricName: `${name}_bucket`, labels: { le, route }, value: cumulative });
      });
      out.push({ metricName: `${name}_bucket`, labels: { le: "+Inf", route }, value: r.count });
      out.push({ metricName: `${name}_sum`, labels: { route }, value: r.sum });
      out.push({ metricName: `${name}_count`, labels: { route }, value: r.count });
    }
    return out;
  }
}

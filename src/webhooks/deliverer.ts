// Runs inside a dispatcher worker: one FIFO queue per endpoint it owns, at most `cap` requests in
// flight per endpoint (first attempts therefore start in event order), each a signed POST through
// undici with the SSRF guard at connect time, a timeout, and no redirects.

import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import type { DispatcherWorkerData, DispatchJob, DispatchResult } from "./protocol.js";
import { signedHeaders } from "./signing.js";
import { UrlGuard } from "./url-guard.js";

const SNIPPET_BYTES = 1024;

interface Queue { active: number; waiting: DispatchJob[] }

export class Deliverer {
  private readonly queues = new Map<string, Queue>();
  private readonly guard: UrlGuard;
  private readonly agent: Agent;

  constructor(private readonly config: DispatcherWorkerData, private readonly report: (r: DispatchResult) => void) {
    this.guard = new UrlGuard(config.allowHosts);
    const ca = config.caFile ? [...rootCertificates, readFileSync(config.caFile, "utf8")] : undefined;
    this.agent = new Agent({
      connect: { ...(ca ? { ca } : {}), lookup: this.guard.lookupFor(), timeout: config.timeoutMs } as object,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      connections: 16,
    });
  }

  enqueue(job: DispatchJob): void {
    let q = this.queues.get(job.webhookId);
    if (!q) { q = { active: 0, waiting: [] }; this.queues.set(job.webhookId, q); }
    q.waiting.push(job);
    this.pump(job.webhookId, q);
  }

  /** Starts queued jobs while the endpoint is under its cap. */
  private pump(id: string, q: Queue): void {
    while (q.waiting.length > 0 && q.active < Math.max(1, q.waiting[0].cap)) {
      const job = q.waiting.shift()!;
      q.active++;
      void this.attempt(job).then((result) => {
        q.active--;
        this.report(result);
        if (q.active === 0 && q.waiting.length === 0) this.queues.delete(id);
        else this.pump(id, q);
      });
    }
  }

  private async attempt(job: DispatchJob): Promise<DispatchResult> {
    const started = performance.now();
    const base = { key: job.key, webhookId: job.webhookId, retryAfter: null };
    const problem = this.guard.problem(job.url);
    if (problem) return { ...base, statusCode: null, error: `blocked: ${problem}`, durationMs: 0, snippet: "" };
    try {
      const headers = signedHeaders(job.secret, job.eventType, job.eventId, job.body, Math.floor(Date.now() / 1000));
      const res = await request(job.url, {
        method: "POST", headers, body: job.body, dispatcher: this.agent, signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      let snippet = "";
      try {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          chunks.push(chunk as Buffer);
          size += (chunk as Buffer).length;
          if (size >= SNIPPET_BYTES) break;
        }
        snippet = Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString("utf8");
      } catch {
        // the snippet is best effort
      } finally {
        res.body.destroy();
      }
      const ra = res.headers["retry-after"];
      return {
        ...base, statusCode: res.statusCode, error: null, durationMs: Math.round(performance.now() - started), snippet,
        retryAfter: (res.statusCode === 429 || res.statusCode === 503) && ra !== undefined ? String(ra) : null,
      };
    } catch (err) {
      const e = err as Error & { cause?: Error };
      const message = e.name === "TimeoutError" || e.name === "AbortError" ? `timeout after ${this.config.timeoutMs} ms` : (e.cause?.message ?? e.message);
      return { ...base, statusCode: null, error: message, durationMs: Math.round(performance.now() - started), snippet: "" };
    }
  }
}

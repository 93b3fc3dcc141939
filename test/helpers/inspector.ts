// A Chrome DevTools Protocol session with a server started with `--inspect=127.0.0.1:0`, attached
// to its worker threads: how tests make a thread crash or hang from outside, as a bug would.

import { WebSocket } from "undici";

interface AttachedWorker {
  sessionId: string;
  workerInfo: { url: string; title: string };
}

export class Inspector {
  private readonly ws: WebSocket;
  private ids = 0;
  private readonly replies = new Map<number, (result: unknown) => void>();
  private readonly workerReplies = new Map<number, (result: unknown) => void>();
  private readonly attached: AttachedWorker[] = [];
  private onAttach: (() => void) | null = null;

  private constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.onmessage = (event) => {
      const m = JSON.parse(String(event.data)) as { id?: number; result?: unknown; method?: string; params?: Record<string, unknown> };
      if (m.id !== undefined) this.replies.get(m.id)?.(m.result);
      if (m.method === "NodeWorker.attachedToWorker") {
        this.attached.push(m.params as unknown as AttachedWorker);
        this.onAttach?.();
      }
      if (m.method === "NodeWorker.receivedMessageFromWorker") {
        const inner = JSON.parse(String(m.params?.message)) as { id?: number; result?: unknown };
        if (inner.id !== undefined) this.workerReplies.get(inner.id)?.(inner.result);
      }
    };
  }

  /** The session of the server whose stderr printed its inspector's address. */
  static async of(stderr: string): Promise<Inspector> {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
    if (!url) throw new Error(`the server printed no inspector address:\n${stderr}`);
    const inspector = new Inspector(url);
    await new Promise((resolve, reject) => {
      inspector.ws.onopen = resolve;
      inspector.ws.onerror = reject;
    });
    await inspector.send("NodeWorker.enable", { waitForDebuggerOnStart: false });
    return inspector;
  }

  send(method: string, params: object = {}): Promise<unknown> {
    const id = ++this.ids;
    return new Promise((resolve) => {
      this.replies.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The sessions of the threads attached so far whose script URL matches `script`. */
  threads(script: RegExp): string[] {
    return this.attached.filter((w) => script.test(w.workerInfo.url)).map((w) => w.sessionId);
  }

  /** The thread attached most recently whose script matches, once more than `known` such have attached (waits 30 s at most). */
  async thread(script: RegExp, known: number): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = this.threads(script);
      if (found.length > known) return found[found.length - 1];
      if (Date.now() > deadline) throw new Error(`no thread running ${script} (${known + 1} expected) among the server's threads`);
      await new Promise<void>((resolve) => {
        this.onAttach = resolve;
        setTimeout(resolve, 1000);
      });
    }
  }

  /** Evaluates `expression` on a worker thread; resolves with what it returned. */
  evaluate(sessionId: string, expression: string): Promise<unknown> {
    const id = ++this.ids;
    return new Promise((resolve) => {
      this.workerReplies.set(id, resolve);
      void this.send("NodeWorker.sendMessageToWorker", {
        sessionId,
        message: JSON.stringify({ id, method: "Runtime.evaluate", params: { expression, returnByValue: true } }),
      });
    });
  }

  close(): void {
    this.ws.close();
  }
}

// `Tessera`: the calls an agent makes, each one line, on `fetch` alone.

import { errorFor, retryAfter } from "./errors.js";
import type { components } from "./schema.js";

type Schemas = components["schemas"];
export type Job = Schemas["JobOut"];
export type SearchHit = Schemas["SearchHit"];
export type Turn = Schemas["TurnEntry"];
export type Session = Schemas["SessionOut"];
export type Forgotten = Schemas["ForgottenOut"];
export type Receipt = Schemas["ReceiptOut"];
export type Version = Schemas["VersionOut"];
export type Integrity = Schemas["IntegrityOut"];
export type PassportWritten = Schemas["PassportWritten"];
export type User = Schemas["UserOut"];
export type Row = Schemas["RowIn"];
/** An OpenAI-style message (`role`, `content`) or Tessera's own (`speaker`, `text`). */
export type Message = Schemas["TurnIn"];
export type Document = Record<string, unknown>;

/** How often and how long the client tries again (`{ attempts: 1 }` never does). */
export interface Retry {
  /** Tries in all, the first one included. */
  attempts: number;
  /** Seconds before the second try when the reply names no wait; doubles each time. */
  backoff: number;
  /** The longest wait the doubling reaches, in seconds. */
  maxBackoff: number;
  /** A `Retry-After` longer than this (seconds) is not waited for: the error is thrown. */
  maxWait: number;
}

export const DEFAULT_RETRY: Retry = { attempts: 4, backoff: 0.5, maxBackoff: 8, maxWait: 30 };
const RETRIED = new Set([429, 503]);
// The most turns, sessions and users the API gives in one page.
const PAGE = 500;

export interface TesseraOptions {
  /** Default: `TESSERA_URL`, else http://127.0.0.1:8000. */
  url?: string;
  /** Default: `TESSERA_API_KEY`. */
  apiKey?: string;
  /** Milliseconds a request may take (an ingest may wait up to 60 s). Default 70,000. */
  timeoutMs?: number;
  retry?: Partial<Retry>;
  /** Replaces the global `fetch` (tests, proxies). */
  fetch?: typeof fetch;
}

type Query = Record<string, string | number | undefined | null>;

interface Request {
  method: string;
  path: string;
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
}

function env(name: string): string | undefined {
  return typeof process === "undefined" ? undefined : process.env[name];
}

function user(key: string): string {
  return `/users/${encodeURIComponent(key)}`;
}

function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/** The system error code under a failed fetch, if any. */
function causeCode(error: unknown): string | undefined {
  return (error as { cause?: { code?: string } })?.cause?.code;
}

/** Whether a fetch failed before the request left this machine (nothing was sent). */
function notSent(error: unknown): boolean {
  const code = causeCode(error);
  return code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
}

/** A connection that broke before a reply came (a kept-alive one the server closed): the
 * request may have been done, so it is sent again only when that is safe (`repeatable`). */
function broken(error: unknown): boolean {
  const code = causeCode(error);
  return code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE";
}

/** Whether sending the request twice does what sending it once does: a read, or a write that
 * carries an Idempotency-Key. */
function repeatable(method: string, headers: Record<string, string>): boolean {
  return method === "GET" || method === "HEAD" || "Idempotency-Key" in headers;
}

/** A tenant's client: `new Tessera({ url, apiKey })`. */
export class Tessera {
  readonly url: string;
  readonly retry: Retry;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly fetcher: typeof fetch;

  constructor(options: TesseraOptions = {}) {
    const apiKey = options.apiKey ?? env("TESSERA_API_KEY");
    if (!apiKey) throw new Error("no API key: pass apiKey or set TESSERA_API_KEY");
    this.apiKey = apiKey;
    this.url = (options.url ?? env("TESSERA_URL") ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 70_000;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetcher = options.fetch ?? fetch;
  }

  /** Store chat `messages`, a `{ text }` or `{ rows }` for `key`; the job. */
  remember(
    key: string,
    input: Message[] | { text: string } | { rows: Row[] },
    options: { session?: string; sessionTs?: string; wait?: number; idempotencyKey?: string } = {},
  ): Promise<Job> {
    const body: Document = {};
    if (Array.isArray(input)) {
      body.turns = input.map((m) => (options.session ? { session: options.session, ...m } : m));
    } else {
      Object.assign(body, input);
    }
    if (options.sessionTs) body.session_ts = options.sessionTs;
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    return this.send<{ job: Job }>({
      method: "POST",
      path: `${user(key)}/ingest`,
      query: { wait: options.wait },
      body,
      headers: { "Idempotency-Key": idempotencyKey },
    }).then((accepted) => accepted.job);
  }

  /** The text to put before the model: instructions, beliefs, the memories that answer. */
  context(
    key: string,
    q?: string,
    options: { budgetChars?: number; since?: string; until?: string; minVersion?: number } = {},
  ): Promise<string> {
    return this.send<string>({
      method: "GET",
      path: `${user(key)}/context`,
      query: {
        q,
        budget_chars: options.budgetChars,
        since: options.since,
        until: options.until,
        min_version: options.minVersion,
      },
    });
  }

  /** The same context as JSON sections: each memory with its score and why. */
  contextSections(
    key: string,
    q?: string,
    options: { budgetChars?: number; minVersion?: number } = {},
  ): Promise<Document> {
    return this.send<Document>({
      method: "GET",
      path: `${user(key)}/context`,
      query: { q, format: "json", budget_chars: options.budgetChars, min_version: options.minVersion },
    });
  }

  /** The passages that match `q` best, best first. */
  async search(
    key: string,
    q: string,
    options: { limit?: number; since?: string; until?: string; minVersion?: number } = {},
  ): Promise<SearchHit[]> {
    const found = await this.send<Schemas["SearchResult"]>({
      method: "GET",
      path: `${user(key)}/search`,
      query: {
        q,
        limit: options.limit,
        since: options.since,
        until: options.until,
        min_version: options.minVersion,
      },
    });
    return found.items;
  }

  /** The last `limit` turns (of `session`), verbatim, in the order they were said. */
  async recentTurns(key: string, options: { session?: string; limit?: number } = {}): Promise<Turn[]> {
    const limit = options.limit ?? 20;
    const newest = await this.pages<Turn>(`${user(key)}/turns`, { session: options.session }, limit);
    return newest.reverse();
  }

  /** One turn, verbatim, by the id it was sent with. */
  turn(key: string, turnId: string): Promise<Turn> {
    return this.send<Turn>({ method: "GET", path: `${user(key)}/turns/${encodeURIComponent(turnId)}` });
  }

  /** The user's sessions (named from `prefix`), the one spoken in last first. */
  sessions(key: string, options: { prefix?: string; limit?: number } = {}): Promise<Session[]> {
    return this.pages<Session>(`${user(key)}/sessions`, { prefix: options.prefix }, options.limit ?? 100);
  }

  /** What is believed now: facts, preferences, entities, open loops, contradictions... */
  beliefs(key: string): Promise<Document> {
    const sections = "facts,prefs,entities,open_loops,contradictions,instructions,values";
    return this.send<Document>({ method: "GET", path: `${user(key)}/passport`, query: { sections } });
  }

  /** The user's whole passport (a plain JSON document), now or at `version`. */
  export(key: string, options: { version?: number } = {}): Promise<Document> {
    return this.send<Document>({
      method: "GET",
      path: `${user(key)}/passport`,
      query: { version: options.version },
    });
  }

  /** Store `document` (an export) as the user's whole passport. */
  importPassport(key: string, document: Document, options: { ifMatch?: string } = {}): Promise<PassportWritten> {
    const headers: Record<string, string> = options.ifMatch ? { "If-Match": options.ifMatch } : {};
    return this.send<PassportWritten>({ method: "PUT", path: `${user(key)}/passport`, body: document, headers });
  }

  /** Forget one turn everywhere it is kept; `receipt` is the signed receipt. */
  forgetTurn(key: string, turnId: string): Promise<Forgotten> {
    return this.send<Forgotten>({ method: "DELETE", path: `${user(key)}/turns/${encodeURIComponent(turnId)}` });
  }

  /** Forget every turn of a source (an ingested segment) everywhere. */
  forgetSource(key: string, sourceId: string): Promise<Forgotten> {
    return this.send<Forgotten>({ method: "DELETE", path: `${user(key)}/sources/${encodeURIComponent(sourceId)}` });
  }

  /** Forget every turn of a session everywhere. */
  forgetSession(key: string, session: string): Promise<Forgotten> {
    return this.send<Forgotten>({ method: "DELETE", path: `${user(key)}/sessions/${encodeURIComponent(session)}` });
  }

  /** Delete the user and everything kept of them; the signed receipt. */
  forgetUser(key: string): Promise<Receipt> {
    return this.send<Receipt>({ method: "DELETE", path: user(key) });
  }

  /** The user's versions, newest first, every page read. */
  async versions(key: string, options: { limit?: number } = {}): Promise<Version[]> {
    const out: Version[] = [];
    let cursor: string | null = null;
    do {
      const page: Schemas["VersionPage"] = await this.send<Schemas["VersionPage"]>({
        method: "GET",
        path: `${user(key)}/versions`,
        query: { limit: options.limit ?? 100, cursor },
      });
      out.push(...page.items);
      cursor = page.next_cursor ?? null;
    } while (cursor !== null);
    return out;
  }

  /** Recompute the user's hash chain; `valid` says whether it holds. */
  verify(key: string, options: { root?: string } = {}): Promise<Integrity> {
    return this.send<Integrity>({ method: "GET", path: `${user(key)}/integrity`, query: { root: options.root } });
  }

  /** A job's state now; with `wait` (seconds, up to 60), once it has ended. */
  job(jobId: string, options: { wait?: number } = {}): Promise<Job> {
    return this.send<Job>({
      method: "GET",
      path: `/jobs/${encodeURIComponent(jobId)}`,
      query: { wait: options.wait },
    });
  }

  /** Up to `limit` of the tenant's users. */
  users(options: { limit?: number } = {}): Promise<User[]> {
    return this.pages<User>("/users", {}, options.limit ?? 1000, 1000);
  }

  /** Up to `limit` items of a listing, page after page, in the order it gives them. */
  private async pages<T>(path: string, query: Query, limit: number, page = PAGE): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null = null;
    while (out.length < limit) {
      const reply: { items: T[]; next_cursor?: string | null } = await this.send({
        method: "GET",
        path,
        query: { ...query, limit: Math.min(limit - out.length, page), cursor },
      });
      out.push(...reply.items);
      cursor = reply.next_cursor ?? null;
      if (cursor === null) break;
    }
    return out;
  }

  /** Send a request, again after the wait Tessera asks for, and read the reply. */
  private async send<T>(request: Request): Promise<T> {
    const url = new URL(this.url + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${this.apiKey}`, ...request.headers };
    const init: RequestInit = { method: request.method, headers };
    if (request.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(request.body);
    }
    for (let tried = 1; ; tried++) {
      let response: Response;
      try {
        response = await this.fetcher(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (error) {
        const again = notSent(error) || (broken(error) && repeatable(request.method, headers));
        const wait = again ? this.delay(tried, null) : null;
        if (wait === null) throw error;
        await sleep(wait);
        continue;
      }
      const text = await response.text();
      if (response.ok) {
        const type = response.headers.get("content-type") ?? "";
        return (type.includes("json") ? JSON.parse(text) : text) as T;
      }
      const wait = RETRIED.has(response.status) ? this.delay(tried, response.headers) : null;
      if (wait === null) throw errorFor(response.status, text, response.headers);
      await sleep(wait);
    }
  }

  /** Seconds to wait before the next try after `tried` tries, or null to give up. */
  private delay(tried: number, headers: Headers | null): number | null {
    if (tried >= this.retry.attempts) return null;
    const asked = headers ? retryAfter(headers) : null;
    if (asked !== null) return asked <= this.retry.maxWait ? asked : null;
    const doubled = Math.min(this.retry.backoff * 2 ** (tried - 1), this.retry.maxBackoff);
    return doubled * (0.5 + Math.random() / 2); // spread: clients refused together part
  }
}

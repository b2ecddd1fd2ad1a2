// One error class per kind of problem the API answers, each carrying its problem+json.

/** An RFC 9457 problem document, as Tessera sends it. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string | null;
  errors?: Array<Record<string, unknown>> | null;
  limit?: string | null;
  version?: number | null;
  min_version?: number | null;
  [field: string]: unknown;
}

/** A request Tessera refused or failed: `status`, `problem` (the problem+json body). */
export class TesseraError extends Error {
  readonly status: number;
  readonly problem: Problem;
  readonly title: string;
  readonly detail: string | null;
  readonly requestId: string | null;

  constructor(status: number, problem: Problem, headers: Headers) {
    const title = String(problem.title ?? `HTTP ${status}`);
    const detail = typeof problem.detail === "string" ? problem.detail : null;
    super(`${status} ${title}${detail ? `: ${detail}` : ""}`);
    this.name = new.target.name;
    this.status = status;
    this.problem = problem;
    this.title = title;
    this.detail = detail;
    this.requestId = headers.get("x-request-id");
  }
}

/** 400: the request could not be read. */
export class BadRequest extends TesseraError {}
/** 401: no API key, or one Tessera does not know. */
export class AuthenticationError extends TesseraError {}
/** 403: the key may not do this. */
export class PermissionDenied extends TesseraError {}
/** 404: no such user, turn, session, job or version for this tenant. */
export class NotFound extends TesseraError {}
/** 409: the state does not allow it, or a read's `minVersion` is not served yet. */
export class Conflict extends TesseraError {}
/** 412: `If-Match` named a version that is no longer the newest. */
export class PreconditionFailed extends TesseraError {}
/** 413: the body or one of its parts is past a size limit (`problem.limit` names it). */
export class TooLarge extends TesseraError {}
/** 422: the body or a parameter is not valid; `errors` says where and what. */
export class InvalidInput extends TesseraError {
  get errors(): Array<Record<string, unknown>> {
    return this.problem.errors ?? [];
  }
}
/** 429: past a rate or quota limit, still so after the client's retries. */
export class RateLimited extends TesseraError {
  readonly retryAfter: number | null;
  constructor(status: number, problem: Problem, headers: Headers) {
    super(status, problem, headers);
    this.retryAfter = retryAfter(headers);
  }
}
/** 5xx: Tessera failed; the request id finds it in the server's log. */
export class ServerError extends TesseraError {}
/** 503: Tessera or its database is not ready, still so after the client's retries. */
export class Unavailable extends ServerError {
  readonly retryAfter: number | null;
  constructor(status: number, problem: Problem, headers: Headers) {
    super(status, problem, headers);
    this.retryAfter = retryAfter(headers);
  }
}

const KINDS: Record<number, typeof TesseraError> = {
  400: BadRequest,
  401: AuthenticationError,
  403: PermissionDenied,
  404: NotFound,
  409: Conflict,
  412: PreconditionFailed,
  413: TooLarge,
  422: InvalidInput,
  429: RateLimited,
  503: Unavailable,
};

/** The error for a reply: its kind by status, its problem from the body. */
export function errorFor(status: number, body: string, headers: Headers): TesseraError {
  let problem: Problem = {};
  try {
    const parsed: unknown = body ? JSON.parse(body) : {};
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) problem = parsed as Problem;
  } catch {
    // Not problem+json (a proxy's page): its opening words are the detail.
    problem = { detail: body.slice(0, 500) };
  }
  problem.status ??= status;
  const Kind = KINDS[status] ?? (status >= 500 ? ServerError : TesseraError);
  return new Kind(status, problem, headers);
}

/** Seconds `Retry-After` asks to wait (delta seconds or an HTTP date), if it says. */
export function retryAfter(headers: Headers): number | null {
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const when = Date.parse(value);
  if (Number.isNaN(when)) return null;
  const date = headers.get("date");
  const now = date && !Number.isNaN(Date.parse(date)) ? Date.parse(date) : Date.now();
  return Math.max((when - now) / 1000, 0);
}

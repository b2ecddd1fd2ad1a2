// Tessera's TypeScript client: `Tessera`, its errors, and the API's types.

export { DEFAULT_RETRY, Tessera } from "./client.js";
export type {
  Document,
  Forgotten,
  Integrity,
  Job,
  Message,
  PassportWritten,
  Receipt,
  Retry,
  Row,
  SearchHit,
  Session,
  TesseraOptions,
  Turn,
  User,
  Version,
} from "./client.js";
export {
  AuthenticationError,
  BadRequest,
  Conflict,
  InvalidInput,
  NotFound,
  PermissionDenied,
  PreconditionFailed,
  RateLimited,
  ServerError,
  TesseraError,
  TooLarge,
  Unavailable,
  errorFor,
  retryAfter,
} from "./errors.js";
export type { Problem } from "./errors.js";
export type { components, operations, paths } from "./schema.js";

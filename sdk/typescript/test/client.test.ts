// The TypeScript client against a live Tessera (TESSERA_URL, TESSERA_API_KEY, set by the suite),
// and its retries against a local server that answers 429 first.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import {
  AuthenticationError,
  InvalidInput,
  NotFound,
  RateLimited,
  Tessera,
  errorFor,
  retryAfter,
} from "../src/index.js";

const memory = new Tessera();

test("remembers an exchange and reads it back every way", async () => {
  const exchange = [
    { role: "user", content: "I adopted a grey cat called Pixel last weekend.", id: "u1" },
    { role: "assistant", content: "Pixel is a fine name for a cat!", id: "a1" },
  ];
  const job = await memory.remember("ts-ada", exchange, { session: "s-1", wait: 30 });
  assert.equal(job.status, "done");
  assert.equal(job.version_after, 1);
  const again = await memory.remember("ts-ada", exchange, { idempotencyKey: "same", wait: 30 });
  const repeat = await memory.remember("ts-ada", exchange, { idempotencyKey: "same", wait: 30 });
  assert.equal(repeat.job_id, again.job_id); // the same key: stored once

  const text = await memory.context("ts-ada", "what is the cat called?", { minVersion: 1 });
  assert.match(text, /Pixel/);
  const sections = await memory.contextSections("ts-ada", "what is the cat called?");
  assert.ok(JSON.stringify(sections.memories).includes("Pixel"));
  const hits = await memory.search("ts-ada", "cat Pixel");
  assert.ok(hits[0].text.includes("Pixel") && hits[0].turn_ids.length > 0);
  const said = await memory.recentTurns("ts-ada", { session: "s-1" });
  assert.deepEqual(said.map((t) => t.id), ["u1", "a1"]); // in the order said
  assert.equal((await memory.turn("ts-ada", "a1")).text, exchange[1].content);
  assert.deepEqual((await memory.sessions("ts-ada")).map((s) => s.name), ["s-1"]);
  assert.ok("facts" in (await memory.beliefs("ts-ada")));

  const document = await memory.export("ts-ada");
  assert.equal(document.user_key, "ts-ada");
  assert.equal((await memory.importPassport("ts-copy", document)).created, true);
  assert.deepEqual((await memory.versions("ts-ada", { limit: 1 })).map((v) => v.version), [2, 1, 0]);
  assert.equal((await memory.verify("ts-ada")).valid, true);
  assert.equal((await memory.job(job.job_id)).status, "done");
  const queued = await memory.remember("ts-ada", { text: "A note about the allotment." });
  assert.equal((await memory.job(queued.job_id, { wait: 30 })).status, "done"); // no polling

  const forgotten = await memory.forgetTurn("ts-ada", "u1");
  assert.equal(forgotten.receipt.scope, "turn");
  assert.doesNotMatch(await memory.context("ts-ada", "what is the cat called?"), /grey cat/);
  assert.equal((await memory.forgetSession("ts-ada", "s-1")).receipt.scope, "session");
  assert.equal((await memory.forgetUser("ts-copy")).scope, "user");
});

test("each problem is its own error, with the problem+json", async () => {
  await assert.rejects(memory.export("ts-nobody"), (error: unknown) => {
    assert.ok(error instanceof NotFound);
    assert.equal(error.status, 404);
    assert.equal(error.detail, "no user 'ts-nobody'");
    return true;
  });
  await assert.rejects(
    memory.remember("ts-ada", [{ speakr: "Ada", text: "hi" } as never]),
    (error: unknown) => error instanceof InvalidInput && JSON.stringify(error.errors).includes("speakr"),
  );
  const stranger = new Tessera({ apiKey: "tsr_nope_nope" });
  await assert.rejects(stranger.context("ts-ada"), AuthenticationError);
  const page = errorFor(502, "<html>Bad gateway</html>", new Headers());
  assert.equal(page.detail, "<html>Bad gateway</html>");
});

async function refusing(times: number, headers: Record<string, string>) {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(String(request.headers["idempotency-key"] ?? ""));
    if (seen.length <= times) {
      response.writeHead(429, { "content-type": "application/problem+json", ...headers });
      response.end(JSON.stringify({ title: "Too many requests", status: 429, limit: "tenant_requests_per_second" }));
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ job: { job_id: "j1", status: "done" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => server.close() };
}

test("a 429 is sent again after the wait Retry-After asks, with the same idempotency key", async () => {
  const server = await refusing(1, { "retry-after": "1" });
  const client = new Tessera({ url: server.url, apiKey: "k" });
  const started = Date.now();
  const job = await client.remember("u", { text: "hello" });
  server.close();
  assert.equal(job.status, "done");
  assert.ok(Date.now() - started >= 1000, "waited the second Retry-After asked for");
  assert.equal(server.seen.length, 2);
  assert.equal(server.seen[0], server.seen[1]);
  assert.match(server.seen[0], /^[0-9a-f-]{36}$/);
});

test("a connection the server drops is sent again only when that is safe", async () => {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.method ?? "");
    if (seen.length % 2 === 1) {
      request.socket.destroy(); // closed without a reply, as a kept-alive connection can be
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ job: { job_id: "j1", status: "done" }, job_id: "j1", status: "done" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new Tessera({ url, apiKey: "k", retry: { backoff: 0 } });
  try {
    await client.remember("u", { text: "hello" }); // a write with its Idempotency-Key
    await client.job("j1"); // a read
    assert.deepEqual(seen, ["POST", "POST", "GET", "GET"]);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("the client gives up past its attempts, or when the wait asked is too long", async () => {
  const busy = await refusing(9, { "retry-after": "0" });
  const client = new Tessera({ url: busy.url, apiKey: "k", retry: { attempts: 3 } });
  await assert.rejects(client.remember("u", { text: "hello" }), RateLimited);
  busy.close();
  assert.equal(busy.seen.length, 3);

  const patient = await refusing(1, { "retry-after": "120" });
  const other = new Tessera({ url: patient.url, apiKey: "k" });
  await assert.rejects(other.remember("u", { text: "hello" }), (error: unknown) => {
    assert.ok(error instanceof RateLimited);
    assert.equal(error.retryAfter, 120);
    assert.equal(error.problem.limit, "tenant_requests_per_second");
    return true;
  });
  patient.close();
  assert.equal(patient.seen.length, 1);
});

test("Retry-After is read as seconds or as a date", () => {
  const now = new Date("2026-12-06T10:00:00Z");
  const later = new Date(now.getTime() + 90_000);
  const headers = new Headers({ "retry-after": later.toUTCString(), date: now.toUTCString() });
  assert.equal(retryAfter(headers), 90);
  assert.equal(retryAfter(new Headers({ "retry-after": "7" })), 7);
  assert.equal(retryAfter(new Headers({ "retry-after": "soon" })), null);
  assert.equal(retryAfter(new Headers()), null);
});

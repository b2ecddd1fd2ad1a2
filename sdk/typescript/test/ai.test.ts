// The Vercel AI SDK middleware with the SDK's own mock model, against a live Tessera.

import assert from "node:assert/strict";
import { test } from "node:test";

import { generateText, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";

import { lastUserText, tesseraMemory, withContext } from "../src/ai.js";
import { Tessera } from "../src/index.js";

const memory = new Tessera();
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const stop = { unified: "stop" as const, raw: "stop" };

/** The session's turns once `count` are stored: the middleware queues its write, never waits. */
async function kept(user: string, session: string, count: number) {
  let turns: Array<{ role?: string | null; text: string }> = [];
  for (let i = 0; i < 100 && turns.length < count; i++) {
    turns = await memory.recentTurns(user, { session }).catch(() => []);
    if (turns.length < count) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return turns.map((t) => [t.role, t.text]);
}

function systemOf(prompt: unknown): string {
  const messages = prompt as Array<{ role: string; content: unknown }>;
  return messages.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n");
}

test("generate: the model is told what Tessera remembers, and the exchange is kept", async () => {
  await memory.remember("ai-ana", [{ role: "user", content: "My sister lives in Porto." }], { wait: 30 });
  const model = new MockLanguageModelV4({
    doGenerate: { content: [{ type: "text", text: "Your sister lives in Porto." }], finishReason: stop, usage, warnings: [] },
  });
  const wrapped = wrapLanguageModel({
    model,
    middleware: tesseraMemory({ client: memory, user: "ai-ana", session: "web-1" }),
  });
  const result = await generateText({
    model: wrapped,
    system: "You are brief.",
    prompt: "Where does my sister live?",
  });
  assert.equal(result.text, "Your sister lives in Porto.");
  const system = systemOf(model.doGenerateCalls[0].prompt);
  assert.match(system, /^You are brief\./);
  assert.match(system, /What you remember about the user:[\s\S]*Porto/);

  assert.deepEqual(
    await kept("ai-ana", "web-1", 2),
    [
      ["user", "Where does my sister live?"],
      ["assistant", "Your sister lives in Porto."],
    ],
  );
});

test("stream: the exchange is kept once the stream has ended", async () => {
  const model = new MockLanguageModelV4({
    doStream: {
      stream: convertArrayToReadableStream([
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Tuesdays " },
        { type: "text-delta", id: "t", delta: "at six." },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: stop, usage },
      ]),
    },
  });
  const wrapped = wrapLanguageModel({
    model,
    middleware: tesseraMemory({ client: memory, user: "ai-bo", session: "web-2" }),
  });
  const result = streamText({ model: wrapped, prompt: "When is choir practice?" });
  let text = "";
  for await (const delta of result.textStream) text += delta;
  assert.equal(text, "Tuesdays at six.");
  // A user Tessera does not know yet: no context, no system message added, no error.
  assert.equal(systemOf(model.doStreamCalls[0].prompt), "");
  assert.deepEqual(
    await kept("ai-bo", "web-2", 2),
    [
      ["user", "When is choir practice?"],
      ["assistant", "Tuesdays at six."],
    ],
  );
});

test("the prompt helpers: the last user words, and context added to the system message", () => {
  const prompt = [
    { role: "system" as const, content: "Be kind." },
    { role: "user" as const, content: [{ type: "text" as const, text: "first" }] },
    { role: "user" as const, content: [{ type: "text" as const, text: "second" }] },
  ];
  assert.equal(lastUserText(prompt), "second");
  assert.equal(lastUserText([]), "");
  const added = withContext(prompt, "Facts:\n- likes tea");
  assert.equal(added[0].role, "system");
  assert.match(String(added[0].content), /^Be kind\.\n\nWhat you remember about the user:\nFacts:/);
  assert.equal(withContext(prompt, "  "), prompt);
  const fresh = withContext(prompt.slice(1), "Facts");
  assert.equal(fresh[0].role, "system");
  assert.equal(fresh.length, 3);
});

test("the example runs as written, its model replaced by the mock", async () => {
  const { main } = await import("../examples/chat.js");
  const model = new MockLanguageModelV4({
    doGenerate: { content: [{ type: "text", text: "Noted: Monday and Friday." }], finishReason: stop, usage, warnings: [] },
    doStream: {
      stream: convertArrayToReadableStream([
        { type: "stream-start", warnings: [] },
        { type: "text-delta", id: "t", delta: "Monday and Friday." },
        { type: "finish", finishReason: stop, usage },
      ]),
    },
  });
  const answers = await main(model, "ai-example");
  assert.deepEqual(answers, ["Noted: Monday and Friday.", "Monday and Friday."]);
  assert.match(systemOf(model.doStreamCalls[0].prompt), /Monday and Friday/);
});

// A Vercel AI SDK chat whose model remembers the user through Tessera: run it beside `make dev`.
//
//   cd sdk/typescript && npm ci && npm run build
//   TESSERA_API_KEY=$(cat ../../.tessera/dev-api-key) OPENAI_API_KEY=... node dist/examples/chat.js
//
// Two turns: the first is remembered once answered; the second is answered with it in the
// system prompt, read back from Tessera.

import { openai } from "@ai-sdk/openai";
import { generateText, streamText, wrapLanguageModel, type LanguageModel } from "ai";

import { Tessera } from "../src/index.js";
import { tesseraMemory } from "../src/ai.js";

/** Two turns with one user; the model's two answers. */
export async function main(model: LanguageModel = openai("gpt-4.1-mini"), user = "example-user") {
  const memory = new Tessera(); // TESSERA_URL (default http://127.0.0.1:8000), TESSERA_API_KEY
  const remembering = wrapLanguageModel({
    model: model as Parameters<typeof wrapLanguageModel>[0]["model"],
    middleware: tesseraMemory({ client: memory, user, session: "example-chat" }),
  });
  const first = await generateText({ model: remembering, prompt: "I switched my gym days to Monday and Friday." });
  // The middleware queues the exchange; wait until it is stored before asking about it.
  for (let i = 0; i < 100 && (await memory.recentTurns(user, { session: "example-chat" }).catch(() => [])).length < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const second = streamText({ model: remembering, prompt: "Which days do I go to the gym?" });
  let answer = "";
  for await (const delta of second.textStream) answer += delta;
  return [first.text, answer];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const answer of await main()) console.log(answer);
}

// Tessera in the Vercel AI SDK: a language-model middleware (`@tessera/client/ai`).
//
// Before a call, the user's context for the conversation's last user message goes into the
// system prompt; once the answer is finished (generated, or streamed to its end), the exchange
// is remembered.

import type { LanguageModelMiddleware } from "ai";

import { Tessera } from "./client.js";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>>;

export interface TesseraMemoryOptions {
  /** The client (default: `new Tessera()`, from `TESSERA_URL` and `TESSERA_API_KEY`). */
  client?: Tessera;
  /** The Tessera user the conversation is with. */
  user: string;
  /** The conversation the exchanges belong to (a Tessera session). */
  session?: string;
  /** Most characters of context added to the system prompt. Default 2,000. */
  budgetChars?: number;
  /** Whether to remember each exchange once it is finished. Default true. */
  remember?: boolean;
  /** What to do when Tessera cannot be reached: the model's answer is never held back. */
  onError?: (error: unknown) => void;
}

/** The words of the last user message of a prompt: what the context is read for. */
export function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message.role === "user") {
      return message.content
        .map((part) => (part.type === "text" ? part.text : ""))
        .filter(Boolean)
        .join("\n");
    }
  }
  return "";
}

/** The prompt with `context` in its system message (a new one first, when it has none). */
export function withContext(prompt: Prompt, context: string): Prompt {
  if (!context.trim()) return prompt;
  const note = `What you remember about the user:\n${context}`;
  const system = prompt.findIndex((message) => message.role === "system");
  if (system < 0) return [{ role: "system", content: note }, ...prompt];
  const copy = [...prompt];
  const first = copy[system];
  if (first.role === "system") copy[system] = { ...first, content: `${first.content}\n\n${note}` };
  return copy;
}

/** A middleware that gives the model the user's memory and remembers what was said. */
export function tesseraMemory(options: TesseraMemoryOptions): LanguageModelMiddleware {
  const client = options.client ?? new Tessera();
  const report = options.onError ?? ((error: unknown) => console.error("tessera:", error));

  async function keep(asked: string, answer: string): Promise<void> {
    if (options.remember === false || !asked.trim() || !answer.trim()) return;
    try {
      await client.remember(
        options.user,
        [
          { role: "user", content: asked },
          { role: "assistant", content: answer },
        ],
        { session: options.session },
      );
    } catch (error) {
      report(error);
    }
  }

  return {
    specificationVersion: "v4",

    async transformParams({ params }) {
      const asked = lastUserText(params.prompt);
      if (!asked.trim()) return params;
      try {
        const context = await client.context(options.user, asked, {
          budgetChars: options.budgetChars ?? 2000,
        });
        return { ...params, prompt: withContext(params.prompt, context) };
      } catch (error) {
        report(error); // a user Tessera does not know yet, or Tessera down: answer without
        return params;
      }
    },

    async wrapGenerate({ doGenerate, params }) {
      const result: GenerateResult = await doGenerate();
      const answer = result.content
        .map((part) => (part.type === "text" ? part.text : ""))
        .join("");
      await keep(lastUserText(params.prompt), answer);
      return result;
    },

    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const asked = lastUserText(params.prompt);
      let answer = "";
      const remembering = new TransformStream<
        (typeof stream extends ReadableStream<infer P> ? P : never),
        (typeof stream extends ReadableStream<infer P> ? P : never)
      >({
        transform(part, controller) {
          if (part.type === "text-delta") answer += part.delta;
          controller.enqueue(part);
        },
        async flush() {
          await keep(asked, answer);
        },
      });
      return { stream: stream.pipeThrough(remembering), ...rest };
    },
  };
}

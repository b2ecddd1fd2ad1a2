"""An OpenAI Agents SDK agent whose conversation and memory are Tessera: run it beside `make dev`.

    pip install './sdk/python[agents]'
    TESSERA_API_KEY=$(cat .tessera/dev-api-key) OPENAI_API_KEY=... \
        python sdk/python/examples/openai_agents.py

Two runs of one session: the second answers from the first, which the session read back from
Tessera. The agent also has the `remember` and `recall` tools for what outlives a session.
"""

from __future__ import annotations

import asyncio

from agents import Agent, Model, Runner

from tessera.integrations.openai_agents import TesseraSession, memory_tools


async def main(model: str | Model = "gpt-4.1-mini", user: str = "example-user") -> list[str]:
    """Two turns of one conversation; the agent's two answers."""
    agent = Agent(
        name="assistant",
        instructions="Answer briefly. Use recall before saying you do not know something.",
        model=model,
        tools=memory_tools(user),  # TESSERA_URL (default http://127.0.0.1:8000), TESSERA_API_KEY
    )
    session = TesseraSession(user, "example-chat")
    answers = []
    for said in ("My book club meets on Thursdays now.", "When does my book club meet?"):
        result = await Runner.run(agent, said, session=session)
        answers.append(str(result.final_output))
    await session.close()
    return answers


if __name__ == "__main__":
    for answer in asyncio.run(main()):
        print(answer)

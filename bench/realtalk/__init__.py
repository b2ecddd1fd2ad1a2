"""Real-conversation benchmark: the REALTALK chats (kept outside the repository) ingested through
the real pipeline, and how much of each question's evidence and answer Tessera's budgeted context
holds, beside a BM25 ranking of the raw messages and the whole conversation.

``python -m bench.realtalk [--data PATH] [--budgets 1500,3000,6000] [--json OUT]``; see
bench/README.md.
"""

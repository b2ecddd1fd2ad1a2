"""User–assistant conversations benchmark: BEAM chats (kept outside the repository) ingested
through the real pipeline, and how many of each probing question's rubric phrases Tessera's
budgeted context holds, beside a BM25 ranking of the raw messages and the whole chat.

``python -m bench.conversations [--data PATH] [--chats N] [--budgets 1500,3000,6000]``; see
bench/README.md.
"""

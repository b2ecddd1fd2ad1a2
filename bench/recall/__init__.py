"""Recall benchmark: synthetic long conversations with questions, and how much of each answer's
evidence Tessera's budgeted context keeps, against a BM25 ranking of the raw turns.

``python -m bench.recall.generate`` writes the data set; ``python -m bench.recall.run`` ingests it
through the real pipeline in process and prints the figures. See bench/README.md.
"""

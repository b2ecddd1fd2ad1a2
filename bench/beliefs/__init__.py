"""Belief precision on real conversations: a labelled sample, recall on questions about people."""

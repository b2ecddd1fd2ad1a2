"""History you can prove: the hash chain over versions, its check, and erasure receipts."""

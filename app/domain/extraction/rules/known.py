"""The keys a passport already holds, indexed so a rule finds the one to reuse (tier 0) at once."""

from __future__ import annotations

from collections.abc import Iterable

from app.domain.keys import key_tokens, normalize_key, split_namespace

# Keys a client may already use for the same belief; reused instead of adding a twin.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "location": ("city", "current_city", "current_location", "home_city", "lives_in", "residence"),
    "occupation": ("job", "job_title", "profession"),
    "employer": ("company", "works_at", "employer_name"),
    "hometown": ("home_town", "town_of_origin"),
    "home_country": ("country_of_origin", "nationality"),
    "name": ("preferred_name",),
    "spouse": ("husband", "wife"),
}


class KnownKeyNames:
    """Known keys by name, by namespace and words, and by namespace and local part."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self.keys = tuple(keys)
        self._names = frozenset(self.keys)
        self._by_words: dict[tuple[str, tuple[str, ...]], int] = {}
        self._by_local: dict[tuple[str, str], int] = {}
        for at, key in enumerate(self.keys):
            namespace, local = split_namespace(normalize_key(key))
            self._by_words.setdefault((namespace, tuple(sorted(key_tokens(local)))), at)
            self._by_local.setdefault((namespace, local), at)

    def __contains__(self, key: object) -> bool:
        return key in self._names

    def __len__(self) -> int:
        return len(self.keys)

    def reuse(self, key: str) -> str:
        """The first known key of the same words or a synonym in ``key``'s namespace, else it."""
        namespace, local = split_namespace(normalize_key(key))
        found = [self._by_words.get((namespace, tuple(sorted(key_tokens(local)))))]
        found += [self._by_local.get((namespace, other)) for other in SYNONYMS.get(local, ())]
        first = min((at for at in found if at is not None), default=None)
        return key if first is None else self.keys[first]
